package ptx

import (
	"fmt"
	"strconv"
	"strings"
)

// Kernel returns the kernel called name. The error lists the kernels the
// module has, since a misspelt or C++-mangled name is the usual cause.
func (m *Module) Kernel(name string) (*Kernel, error) {
	names := make([]string, len(m.Kernels))
	for i, k := range m.Kernels {
		if k.Name == name {
			return k, nil
		}
		names[i] = k.Name
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("ptx: %s has no kernel %q (it has no kernels)", m.Name, name)
	}
	return nil, fmt.Errorf("ptx: %s has no kernel %q (kernels: %s)", m.Name, name, strings.Join(names, ", "))
}

// SourceLine names a source position as "spmv.cu:42" (the base name of
// its .file path), or "" when the PTX has no line information for it: what
// a fault or a memory site shows so a student finds the line of CUDA C.
func (m *Module) SourceLine(l Loc) string {
	if l.File <= 0 || int(l.File) >= len(m.Files) || l.Line <= 0 || m.Files[l.File] == "" {
		return ""
	}
	path := m.Files[l.File]
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		path = path[i+1:]
	}
	return path + ":" + strconv.Itoa(int(l.Line))
}
