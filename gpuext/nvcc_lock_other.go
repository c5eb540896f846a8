//go:build !unix

package gpuext

// lockDir is a no-op where there is no flock: gen-ptx.sh, the other user
// of the fixed folder, needs bash and flock anyway.
func lockDir(string) (unlock func(), err error) { return func() {}, nil }
