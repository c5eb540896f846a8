package lesson

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrUsage marks an error that is the command line's, not the run's: the
// command exits 2 for it, as for every error of Validate. Run wraps it
// (Usagef) for a flag value that is out of range only on the device it was
// given, which Validate cannot know (cg's --grid on the simulator).
var ErrUsage = errors.New("usage")

// Usagef returns an error wrapping ErrUsage; its text is the formatted
// message after "usage: ", one line naming the flag.
func Usagef(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, a...))
}

// CheckOutputFile reports, before anything runs, why a file that flag
// (spelled as on the command line, "--svg") names could not be written
// after the run: a name that does not end in one of exts (when exts are
// given; "-" for stdout is the caller's to allow), a path that is a folder
// or not a regular file, a folder that does not exist, or one the command
// cannot write in, found by creating and removing a temporary file there
// (the same way the file itself is then written: a temporary file beside it
// and a rename). nil when path is empty. The error is one line naming the
// flag and the path.
func CheckOutputFile(flag, path string, exts ...string) error {
	if path == "" {
		return nil
	}
	if len(exts) > 0 && !slices.Contains(exts, strings.ToLower(filepath.Ext(path))) {
		if path == "-" {
			return fmt.Errorf("%s -: the file is written by name, not to stdout: want a file ending in %s", flag, orList(exts))
		}
		return fmt.Errorf("%s %s: want a file ending in %s", flag, path, orList(exts))
	}
	if strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(filepath.Separator)) {
		return fmt.Errorf("%s %s: is a folder; name a file in it", flag, path)
	}
	if st, err := os.Stat(path); err == nil {
		switch {
		case st.IsDir():
			return fmt.Errorf("%s %s: is a folder; name a file in it", flag, path)
		case !st.Mode().IsRegular():
			return fmt.Errorf("%s %s: is not a regular file (the file is replaced by a rename); name a file", flag, path)
		}
	}
	return checkFolder(flag, path, filepath.Dir(path))
}

// CheckInputFile reports an input file that flag names ("--matrix") and
// that is missing, unreadable or a folder, before any device work: one line
// naming the flag and the path. A file that is there but does not parse is
// the reader's to report (naming the path too). nil when path is empty.
// Its error is not a usage error: an input that cannot be read is a run
// that could not run (exit status 1).
func CheckInputFile(flag, path string) error {
	if path == "" {
		return nil
	}
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return fmt.Errorf("%s %s: %w", flag, path, pathErr(err))
	case st.IsDir():
		return fmt.Errorf("%s %s: is a folder, not a file", flag, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, pathErr(err))
	}
	return f.Close()
}

// CheckOutputDir is CheckOutputFile for a flag that names a folder to write
// files in (libs' --dump): it must exist, be a folder, and take a file.
func CheckOutputDir(flag, dir string) error {
	if dir == "" {
		return nil
	}
	return checkFolder(flag, dir, dir)
}

// checkFolder checks that dir (the folder of path) exists and takes a new
// file: it creates one and removes it.
func checkFolder(flag, path, dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %s: folder %s does not exist", flag, path, dir)
	case err != nil:
		return fmt.Errorf("%s %s: folder %s: %v", flag, path, dir, pathErr(err))
	case !st.IsDir():
		return fmt.Errorf("%s %s: %s is not a folder", flag, path, dir)
	}
	f, err := os.CreateTemp(dir, ".warplab-check-*")
	if err != nil {
		return fmt.Errorf("%s %s: cannot write in folder %s: %v", flag, path, dir, pathErr(err))
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("%s %s: folder %s: %v", flag, path, dir, pathErr(err))
	}
	return nil
}

// pathErr is err without the path a *fs.PathError repeats ("permission
// denied", not "open /x/.warplab-check-123: permission denied").
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// orList spells exts as ".svg or .png".
func orList(exts []string) string {
	switch len(exts) {
	case 1:
		return exts[0]
	}
	return strings.Join(exts[:len(exts)-1], ", ") + " or " + exts[len(exts)-1]
}

// Interruptible runs f and returns its result, or ctx's error as soon as
// ctx is done, whichever comes first. It is for CPU work a lesson cannot
// stop from inside because it is another package's (building a seed
// matrix with sparse.ToCSR, parsing a Matrix Market file): Ctrl-C then
// returns at once, and f runs to its end in the background, its result
// dropped. That work is linear in the input, seconds at most, so it is
// left to finish rather than threaded with a context.
func Interruptible[T any](ctx context.Context, f func() (T, error)) (T, error) {
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, err
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
