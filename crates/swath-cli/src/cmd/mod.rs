//! The commands, one module each (a command with subcommands, a folder).
//! A command imports from the shared parts beside this folder
//! (`args`, `output`, `progress`, ...), never from another command.

pub mod count;
pub mod csv;
pub mod gen;
pub mod json;
pub mod lab;
pub mod lines;
pub mod shell;
#[cfg(feature = "sql")]
pub mod sql;
