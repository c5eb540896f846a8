//go:build unix

package gpuext

import (
	"os"
	"syscall"
)

// lockDir takes the flock gen-ptx.sh takes on the fixed source folder, so a
// notebook and the script never compile from it at the same time.
func lockDir(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
