// Command warplab runs the course's lessons on a GPU or on the SIMT
// simulator, prints the tables their seeds print, and writes JSON and SVG
// for pages and notebooks.
//
//	warplab run LESSON [flags]          run a lesson (see `warplab run spmv -h`)
//	warplab matrix get GROUP/NAME       fetch a SuiteSparse matrix into the cache
//	warplab selftest --backend gpu|sim  run every lesson kernel and check it
//	warplab bench launch --backend gpu  host cost of one kernel launch from Go
//
// Exit status: 0 when everything ran and every check passed, 1 when a check
// failed or something could not run, 2 for a usage error.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/warplab/warplab/lessons/all"
	"github.com/warplab/warplab/lessons/lesson"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// lessons are the lessons' descriptors (package lessons/lesson), listed
// once in lessons/all; runLesson does the rest (the shared flags, the
// device, the output files, the figure), so the command has no line per
// lesson.
func lessons() []*lesson.Lesson { return all.Lessons() }

func lessonNames() []string {
	var names []string
	for _, l := range lessons() {
		names = append(names, l.Name)
	}
	sort.Strings(names)
	return names
}

func usage(w io.Writer) {
	fmt.Fprintf(w, `usage:
  warplab run LESSON [flags]           run a lesson and print its tables (lessons: %s)
  warplab matrix get GROUP/NAME [--cache DIR]
                                       download a SuiteSparse matrix, print its path
  warplab selftest [--backend gpu|sim] run every lesson kernel and check it against
                                       the CPU reference (and, on a GPU, the simulator)
  warplab bench launch [--backend gpu] host cost of one kernel launch from Go
  warplab timemodel check|constants|calibrate
                                       the time model against every recorded GPU run
  warplab help                         this text

'warplab run LESSON -h' lists a lesson's flags.
`, strings.Join(lessonNames(), ", "))
}

// run is main without the process: it parses args, writes to stdout and
// stderr, and returns the exit status, so that tests can call it.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return exitOK
	case "run":
		if len(args) < 2 || strings.HasPrefix(args[1], "-") {
			fmt.Fprintf(stderr, "warplab run: name a lesson (%s)\n", strings.Join(lessonNames(), ", "))
			return exitUsage
		}
		l, ok := all.ByName(args[1])
		if !ok {
			fmt.Fprintf(stderr, "warplab run: no lesson %q (lessons: %s)\n", args[1], strings.Join(lessonNames(), ", "))
			return exitUsage
		}
		return runLesson(l, args[2:], stdout, stderr)
	case "matrix":
		return runMatrix(args[1:], stdout, stderr)
	case "selftest":
		return runSelftest(args[1:], stdout, stderr)
	case "bench":
		return runBench(args[1:], stdout, stderr)
	case "timemodel":
		return runTimeModel(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "warplab: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

// errUsage marks an error that is the caller's command line, exit status 2:
// the lesson contract's, so that a lesson's Run can return one too.
var errUsage = lesson.ErrUsage

// usageErrorf returns an error wrapping errUsage.
func usageErrorf(format string, a ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, a...))
}

// fail prints err short and returns its exit status.
func fail(stderr io.Writer, cmd string, err error) int {
	msg := err.Error()
	if errors.Is(err, errUsage) {
		msg = strings.TrimPrefix(msg, errUsage.Error()+": ")
		fmt.Fprintf(stderr, "%s: %s\n", cmd, msg)
		return exitUsage
	}
	fmt.Fprintf(stderr, "%s: %s\n", cmd, msg)
	return exitFail
}

// isTerminal reports whether w is a character device (a terminal), where
// progress lines belong; in a pipe or a log they would be noise.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressLine returns a Progress callback that redraws one stderr line, and
// a function that clears it; both do nothing when stderr is not a terminal.
func progressLine(stderr io.Writer) (update func(stage string, done, total int), clear func()) {
	if !isTerminal(stderr) {
		return nil, func() {}
	}
	update = func(stage string, done, total int) {
		if total <= 0 {
			fmt.Fprintf(stderr, "\r\033[K[%d] %s ...", done+1, stage)
			return
		}
		fmt.Fprintf(stderr, "\r\033[K[%d/%d] %s ...", done+1, total, stage)
	}
	clear = func() { fmt.Fprint(stderr, "\r\033[K") }
	return update, clear
}

// writeFileAtomic writes path through a temporary file in the same folder
// and a rename, so a reader never sees half a file and a failure leaves any
// previous file in place.
func writeFileAtomic(path string, write func(io.Writer) error) (err error) {
	dir, base := ".", path
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		dir, base = path[:i+1], path[i+1:]
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
