// The Go methods of swath's lab: the ten ways of the Go article's lab and
// the five benchmarks of "Buffered vs non buffered file IO using go",
// written for swath from their descriptions, so that Go and Rust run on
// the same machine, on the same file, in the same series.
//
// `swath lab --go` writes this file to a temporary module, builds it and
// runs it once per run of each Go method:
//
//	swath-lab-go -method go-read-256K -file F -scratch D -expect N -write-lines W
//
// It prints one line in the lab's sample format (the Rust child's), or a
// "not applicable" line, and exits 1 with "WRONG ANSWER" on stderr when its
// count is not the expected one: a fast wrong method must not win.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// What one run found.
type outcome struct {
	lines int64
	bytes int64
	calls int64 // read/write calls, or -1 when not counted
}

// notApplicable: the method cannot read this file at all (not a failure).
type notApplicable struct{ why string }

func (n notApplicable) Error() string { return n.why }

// The line the write benchmarks write.
const writeLine = "some text!\n"

// lineCounter counts lines the way every lab method does: newlines, plus
// one for a last line without one.
type lineCounter struct {
	newlines int64
	bytes    int64
	last     byte
}

func (c *lineCounter) add(p []byte) {
	if len(p) == 0 {
		return
	}
	c.newlines += int64(bytes.Count(p, []byte{'\n'}))
	c.bytes += int64(len(p))
	c.last = p[len(p)-1]
}

func (c *lineCounter) lines() int64 {
	if c.bytes > 0 && c.last != '\n' {
		return c.newlines + 1
	}
	return c.newlines
}

// readBuf: File.Read into one reused buffer of `size` bytes.
func readBuf(path string, size int) (outcome, error) {
	f, err := os.Open(path)
	if err != nil {
		return outcome{}, err
	}
	defer f.Close()
	buf := make([]byte, size)
	var c lineCounter
	var calls int64
	for {
		calls++
		n, err := f.Read(buf)
		c.add(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return outcome{}, err
		}
	}
	return outcome{c.lines(), c.bytes, calls}, nil
}

// scanLines: bufio.Scanner with its default 64 KB token limit, counting
// tokens; with text, each line is also made a string (Text()).
func scanLines(path string, text bool) (outcome, error) {
	f, err := os.Open(path)
	if err != nil {
		return outcome{}, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	var lines, size int64
	for s.Scan() {
		lines++
		if text {
			size += int64(len(s.Text()))
		} else {
			size += int64(len(s.Bytes()))
		}
	}
	if err := s.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return outcome{}, notApplicable{"a line is longer than bufio.Scanner's 64 KB token limit"}
		}
		return outcome{}, err
	}
	st, err := f.Stat()
	if err != nil {
		return outcome{}, err
	}
	return outcome{lines, st.Size(), -1}, nil
}

// readString: bufio.Reader.ReadString('\n'), a new string per line.
func readString(path string) (outcome, error) {
	f, err := os.Open(path)
	if err != nil {
		return outcome{}, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var lines, size int64
	for {
		line, err := r.ReadString('\n')
		if len(line) > 0 {
			lines++
			size += int64(len(line))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return outcome{}, err
		}
	}
	return outcome{lines, size, -1}, nil
}

// readFile: os.ReadFile, the whole file in memory, then one count.
func readFile(path string) (outcome, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return outcome{}, err
	}
	var c lineCounter
	c.add(data)
	return outcome{c.lines(), c.bytes, -1}, nil
}

// readAt: `workers` goroutines, each ReadAt-ing its own byte range into
// its own 1 MiB buffer. Counting newlines needs no boundary fixing.
func readAt(path string, workers int) (outcome, error) {
	f, err := os.Open(path)
	if err != nil {
		return outcome{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return outcome{}, err
	}
	size := st.Size()
	per := (size + int64(workers) - 1) / int64(workers)
	if per == 0 {
		per = 1
	}
	newlines := make([]int64, workers)
	calls := make([]int64, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		start, end := int64(i)*per, int64(i+1)*per
		if end > size {
			end = size
		}
		if start >= end {
			continue
		}
		wg.Add(1)
		go func(i int, start, end int64) {
			defer wg.Done()
			buf := make([]byte, 1<<20)
			for pos := start; pos < end; {
				want := end - pos
				if want > int64(len(buf)) {
					want = int64(len(buf))
				}
				calls[i]++
				n, err := f.ReadAt(buf[:want], pos)
				newlines[i] += int64(bytes.Count(buf[:n], []byte{'\n'}))
				pos += int64(n)
				if err != nil && !(err == io.EOF && pos == end) {
					if err == io.EOF {
						err = fmt.Errorf("file ended at byte %d, before %d: truncated while read?", pos, end)
					}
					errs[i] = err
					return
				}
			}
		}(i, start, end)
	}
	wg.Wait()
	var out outcome
	for i := range newlines {
		if errs[i] != nil {
			return outcome{}, errs[i]
		}
		out.lines += newlines[i]
		out.calls += calls[i]
	}
	out.bytes = size
	if size > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, size-1); err != nil {
			return outcome{}, err
		}
		if last[0] != '\n' {
			out.lines++
		}
	}
	return out, nil
}

// writeLines: `lines` lines to a new file, one WriteString each, straight
// to the file or through a bufio.Writer.
func writeLines(path string, lines int64, buffered bool) (outcome, error) {
	f, err := os.Create(path)
	if err != nil {
		return outcome{}, err
	}
	var w io.StringWriter = f
	var bw *bufio.Writer
	if buffered {
		bw = bufio.NewWriter(f)
		w = bw
	}
	for i := int64(0); i < lines; i++ {
		if _, err := w.WriteString(writeLine); err != nil {
			f.Close()
			return outcome{}, err
		}
	}
	if bw != nil {
		if err := bw.Flush(); err != nil {
			f.Close()
			return outcome{}, err
		}
	}
	if err := f.Close(); err != nil {
		return outcome{}, err
	}
	return outcome{lines, lines * int64(len(writeLine)), -1}, nil
}

// readBack: the lines of what a write method wrote, after checking its size.
func readBack(path string, size int64) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	if int64(len(data)) != size {
		return 0, fmt.Errorf("%s holds %d bytes, %d were written", path, len(data), size)
	}
	var c lineCounter
	c.add(data)
	return c.lines(), nil
}

// The input of the second text's read benchmarks: the file its write
// benchmark writes, written before the timed part.
func benchInput(scratch string, lines int64) (string, error) {
	path := filepath.Join(scratch, "go-b-input.txt")
	_, err := writeLines(path, lines, true)
	return path, err
}

func run(method, file, scratch string, nlines int64) (outcome, func() (int64, error), error) {
	sizes := map[string]int{
		"go-read-512B": 512, "go-read-4K": 4 << 10, "go-read-32K": 32 << 10,
		"go-read-256K": 256 << 10, "go-read-1M": 1 << 20, "go-read-8M": 8 << 20,
	}
	if size, ok := sizes[method]; ok {
		o, err := readBuf(file, size)
		return o, nil, err
	}
	switch method {
	case "go-scanner":
		o, err := scanLines(file, false)
		return o, nil, err
	case "go-readstring":
		o, err := readString(file)
		return o, nil, err
	case "go-readfile":
		o, err := readFile(file)
		return o, nil, err
	case "go-readat-10":
		o, err := readAt(file, 10)
		return o, nil, err
	case "go-b-write-unbuffered", "go-b-write-bufio":
		out := filepath.Join(scratch, method+".out")
		o, err := writeLines(out, nlines, method == "go-b-write-bufio")
		check := func() (int64, error) {
			defer os.Remove(out)
			return readBack(out, o.bytes)
		}
		return o, check, err
	}
	return outcome{}, nil, fmt.Errorf("no Go method called %q", method)
}

// The second text's reads need their input first: written here, untimed.
func prepare(method, scratch string, lines int64) (string, func(), error) {
	switch method {
	case "go-b-read-10B", "go-b-readstring", "go-b-scanner":
		path, err := benchInput(scratch, lines)
		return path, func() { os.Remove(path) }, err
	}
	return "", func() {}, nil
}

func runBench(method, path string) (outcome, error) {
	switch method {
	case "go-b-read-10B":
		return readBuf(path, 10)
	case "go-b-readstring":
		return readString(path)
	default:
		return scanLines(path, true)
	}
}

func secs(tv syscall.Timeval) float64 {
	return float64(tv.Sec) + float64(tv.Usec)*1e-6
}

func main() {
	method := flag.String("method", "", "the Go method to run once")
	file := flag.String("file", "", "the file to read")
	scratch := flag.String("scratch", os.TempDir(), "where write methods write")
	expect := flag.Int64("expect", -1, "the lines the method must find")
	lines := flag.Int64("write-lines", 100000, "lines of the write benchmarks")
	flag.Parse()
	fail := func(format string, args ...interface{}) {
		fmt.Fprintf(os.Stderr, *method+": "+format+"\n", args...)
		os.Exit(1)
	}
	if *expect < 0 {
		fail("-expect is required")
	}

	benchPath, cleanup, err := prepare(*method, *scratch, *lines)
	defer cleanup()
	if err != nil {
		fail("cannot write the benchmark's input: %v", err)
	}

	runtime.GC()
	var before, after runtime.MemStats
	var ruBefore, ruAfter syscall.Rusage
	runtime.ReadMemStats(&before)
	syscall.Getrusage(syscall.RUSAGE_SELF, &ruBefore)
	start := time.Now()
	var o outcome
	var check func() (int64, error)
	if benchPath != "" {
		o, err = runBench(*method, benchPath)
	} else {
		o, check, err = run(*method, *file, *scratch, *lines)
	}
	elapsed := time.Since(start).Seconds()
	syscall.Getrusage(syscall.RUSAGE_SELF, &ruAfter)
	runtime.ReadMemStats(&after)
	var na notApplicable
	if errors.As(err, &na) {
		fmt.Printf("swath-lab-not-applicable %s\n", na.why)
		return
	}
	if err != nil {
		fail("%v", err)
	}
	found := o.lines
	if check != nil {
		if found, err = check(); err != nil {
			fail("%v", err)
		}
	}
	if found != *expect {
		fail("WRONG ANSWER: counted %d lines, expected %d", found, *expect)
	}
	calls := "-"
	if o.calls >= 0 {
		calls = fmt.Sprint(o.calls)
	}
	// Go keeps no heap high-water mark: the live heap just after the
	// method, above the one before it, is the nearest figure.
	heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if heap < 0 {
		heap = 0
	}
	fmt.Printf("swath-lab-sample secs=%g lines=%d bytes=%d syscalls=%s buf_offset=- allocated=%d "+
		"allocations=%d heap_peak=%d max_rss=%d user=%g sys=%g minor_faults=%d major_faults=%d residency=-\n",
		elapsed, found, o.bytes, calls, after.TotalAlloc-before.TotalAlloc, after.Mallocs-before.Mallocs,
		heap, ruAfter.Maxrss*1024, secs(ruAfter.Utime)-secs(ruBefore.Utime),
		secs(ruAfter.Stime)-secs(ruBefore.Stime), ruAfter.Minflt-ruBefore.Minflt,
		ruAfter.Majflt-ruBefore.Majflt)
}
