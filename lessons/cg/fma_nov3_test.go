//go:build !amd64.v3

package cg

// goamd64v3 reports whether the test binary was built with GOAMD64=v3 or
// higher, where the compiler may emit VFMADD for a*b + c.
const goamd64v3 = false
