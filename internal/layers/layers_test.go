package layers

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
)

// listed is one package of `go list`: its path, folder, Go files and
// imports (non-test).
type listed struct {
	path, dir string
	files     []string
	imports   []string
}

// goList lists every package of the module with `go list`, as the layering
// is checked by the same tool a reader would use (go list -deps).
func goList(t *testing.T) []listed {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}}|{{.Dir}}|{{join .GoFiles \",\"}}|{{join .Imports \",\"}}", "./...")
	cmd.Dir = testenv.ModuleRoot(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []listed
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 4 || !strings.HasPrefix(f[0], Module+"/") {
			continue
		}
		p := listed{path: strings.TrimPrefix(f[0], Module+"/"), dir: f[1]}
		if f[2] != "" {
			p.files = strings.Split(f[2], ",")
		}
		for _, im := range strings.Split(f[3], ",") {
			if rel, ok := strings.CutPrefix(im, Module+"/"); ok {
				p.imports = append(p.imports, rel)
			}
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestLayering: no package imports one on its own floor or above
// (internal/layers' table), outside the Known list.
func TestLayering(t *testing.T) {
	imports := map[string][]string{}
	for _, p := range goList(t) {
		imports[p.path] = p.imports
	}
	if len(imports) < 20 {
		t.Fatalf("go list found %d packages; the test is not looking at the module", len(imports))
	}
	bad := Check(imports)
	slices.Sort(bad)
	for _, b := range bad {
		t.Error(b)
	}
	for arrow, why := range Known() {
		from, to, _ := strings.Cut(arrow, " -> ")
		if !slices.Contains(imports[from], to) {
			t.Errorf("Known lists %s (%s), and the arrow is gone: remove the entry", arrow, why)
		}
	}
}

// TestCheckFindsViolations: the checker itself flags an arrow up, one
// across a floor, and a package with no rank.
func TestCheckFindsViolations(t *testing.T) {
	bad := Check(map[string][]string{
		"sim":            {"gpuext"},
		"lessons/spmv":   {"lessons/tiling", "gpuext"},
		"gpuext":         {"sim", "table"},
		"newtop/thing":   nil,
		"sparse/gen":     {"sparse"},
		"plots":          {"timecheck"}, // no longer Known: timefig draws the reports
		"cmd/warplab":    {"lessons/spmv", "lab"},
		"lessons/libs":   {"lessons/lesson"},
		"internal/sweep": {"lessons/cg"},
	})
	slices.Sort(bad)
	want := []string{
		"lessons/spmv (rank 6) imports lessons/tiling (rank 6)",
		"newtop/thing: no rank; place it in internal/layers' table",
		"plots (rank 5) imports timecheck (rank 8)",
		"sim (rank 2) imports gpuext (rank 3)",
	}
	if !slices.Equal(bad, want) {
		t.Errorf("Check = %q\nwant %q", bad, want)
	}
}

// TestPublicAPINoInternal: no exported declaration of a package outside
// internal/ names a type from an internal package (a caller could not name
// it). It reads the syntax: exported functions' and methods' signatures,
// exported types' definitions and exported variables' and constants' types.
func TestPublicAPINoInternal(t *testing.T) {
	knownAPI := KnownAPI()
	for _, p := range goList(t) {
		if strings.HasPrefix(p.path, "internal/") || strings.Contains(p.path, "/internal/") || strings.HasPrefix(p.path, "cmd/") {
			continue
		}
		if _, ok := knownAPI[p.path]; ok {
			continue
		}
		fset := token.NewFileSet()
		for _, name := range p.files {
			f, err := parser.ParseFile(fset, filepath.Join(p.dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			internal := map[string]string{} // local name -> import path
			for _, im := range f.Imports {
				path, _ := strconv.Unquote(im.Path.Value)
				if !strings.Contains(path, "/internal/") {
					continue
				}
				local := path[strings.LastIndex(path, "/")+1:]
				if im.Name != nil {
					local = im.Name.Name
				}
				internal[local] = path
			}
			if len(internal) == 0 {
				continue
			}
			check := func(where string, n ast.Node) {
				if n == nil {
					return
				}
				ast.Inspect(n, func(n ast.Node) bool {
					if sel, ok := n.(*ast.SelectorExpr); ok {
						if id, ok := sel.X.(*ast.Ident); ok {
							if path, ok := internal[id.Name]; ok && ast.IsExported(sel.Sel.Name) {
								t.Errorf("%s: exported %s names %s.%s from %s", fset.Position(sel.Pos()), where, id.Name, sel.Sel.Name, path)
							}
						}
					}
					return true
				})
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Name.IsExported() && (d.Recv == nil || exportedRecv(d.Recv)) {
						check(d.Name.Name, d.Type)
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							if s.Name.IsExported() {
								checkType(s.Name.Name, s.Type, check)
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() {
									check(n.Name, s.Type)
								}
							}
						}
					}
				}
			}
		}
	}
}

// checkType checks a type definition's exported parts: an exported
// struct field's type, an interface's methods, anything else whole.
func checkType(name string, typ ast.Expr, check func(string, ast.Node)) {
	st, ok := typ.(*ast.StructType)
	if !ok {
		check(name, typ)
		return
	}
	for _, fld := range st.Fields.List {
		exported := len(fld.Names) == 0 // embedded
		for _, n := range fld.Names {
			exported = exported || n.IsExported()
		}
		if exported {
			check(name+" field", fld.Type)
		}
	}
}

func exportedRecv(r *ast.FieldList) bool {
	if len(r.List) == 0 {
		return false
	}
	t := r.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if ix, ok := t.(*ast.IndexListExpr); ok {
		t = ix.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}
