//go:build cuda

package gpuext

import (
	"errors"
	"fmt"
	"unsafe"

	"gorgonia.org/cu"
)

// cudaGraph is a recorded Graph on a GPU: built node by node from the
// recorded steps (not by stream capture, which the legacy default stream
// that Launch uses does not allow), each node depending on the one before,
// so the steps run in the recorded order, then instantiated.
type cudaGraph struct {
	exec      cu.ExecGraph
	gen       uint64    // the context generation it was made in
	last      launchRef // its last kernel, named by a fault's error
	destroyed bool      // guarded by cudaDev.mu
}

// graphBuild implements gpuBackend: a kernel node per launch (loaded and
// checked as Launch does), a memcpy node per CopyFromBuffer, a memset node
// per Fill, in a chain, then cuGraphInstantiate. The graph itself is
// destroyed once instantiated; the executable graph keeps what it needs.
func (g *cudaDev) graphBuild(ops []graphOp) (gpuGraph, error) {
	cg := &cudaGraph{}
	err := g.do(func() error {
		graph, err := cu.MakeGraph()
		if err != nil {
			return g.sticky("cuGraphCreate", err)
		}
		defer graph.Destroy()
		var prev []cu.Node
		for i := range ops {
			op := &ops[i]
			var node cu.Node
			switch op.kind {
			case opKernel:
				le := &LaunchError{Call: "Launch", Module: op.m.Name, Kernel: op.name, Grid: op.grid, Block: op.block, Shared: op.shared}
				f, call, err := g.prepareLocked(op.m, op.name, op.block, op.shared)
				if err != nil {
					le.Call, le.Err = call, err
					return le
				}
				ptrs := make([]unsafe.Pointer, len(op.params))
				for i := range op.params {
					ptrs[i] = unsafe.Pointer(&op.params[i])
				}
				node, err = graph.AddKernelNodeWithArgs(prev, f.fn, op.grid.X, op.grid.Y, op.grid.Z,
					op.block.X, op.block.Y, op.block.Z, op.shared, ptrs)
				if err != nil {
					le.Call, le.Err = "cuGraphAddKernelNode", cudaErr("cuGraphAddKernelNode", err)
					return le
				}
				cg.last = launchRef{op.m, op.name, op.grid, op.block, op.shared}
			case opCopy:
				if node, err = graph.AddMemcpyDtoDNode(prev, cu.DevicePtr(op.dst), cu.DevicePtr(op.src), op.bytes, g.ctx); err != nil {
					return fmt.Errorf("%s: %w", op, cudaErr("cuGraphAddMemcpyNode", err))
				}
			case opFill:
				if node, err = graph.AddMemsetD32Node(prev, cu.DevicePtr(op.dst), op.word, op.words, g.ctx); err != nil {
					return fmt.Errorf("%s: %w", op, cudaErr("cuGraphAddMemsetNode", err))
				}
			}
			prev = []cu.Node{node}
		}
		exec, err := graph.Instantiate()
		if err != nil {
			return g.sticky("cuGraphInstantiate", err)
		}
		cg.exec, cg.gen = exec, g.gen.Load()
		if g.graphs == nil {
			g.graphs = make(map[*cudaGraph]struct{})
		}
		g.graphs[cg] = struct{}{}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return cg, nil
}

// graphLaunch implements gpuBackend: one cuGraphLaunch on the default
// stream, the stream Launch, the copies and Time's events use.
func (g *cudaDev) graphLaunch(h gpuGraph) error {
	cg, ok := h.(*cudaGraph)
	if !ok || cg == nil {
		return errors.New("not a graph of this GPU backend")
	}
	return g.do(func() error {
		if cg.destroyed {
			return errors.New("the graph was closed")
		}
		if cg.gen != g.gen.Load() {
			_, why := g.generation()
			return fmt.Errorf("the graph %w, destroyed when %s; record it again", ErrDiedWithContext, why)
		}
		if err := cg.exec.Launch(cu.NoStream); err != nil {
			return g.sticky("cuGraphLaunch", err)
		}
		g.lastLaunch = cg.last
		return nil
	})
}

// graphDestroy implements gpuBackend. A graph of a context that a fault
// destroyed, or of a closed device, went with it: nothing to free.
func (g *cudaDev) graphDestroy(h gpuGraph) error {
	cg, ok := h.(*cudaGraph)
	if !ok || cg == nil {
		return nil
	}
	g.mu.Lock()
	gone := g.closed || g.dead != nil || cg.destroyed || cg.gen != g.gen.Load()
	g.mu.Unlock()
	if gone {
		return nil
	}
	return g.do(func() error {
		if cg.destroyed || cg.gen != g.gen.Load() {
			return nil
		}
		cg.destroyed = true
		delete(g.graphs, cg)
		if err := cg.exec.Destroy(); err != nil {
			return cudaErr("cuGraphExecDestroy", err)
		}
		return nil
	})
}

// destroyGraphsLocked frees every graph still alive (Close). g.mu is held.
func (g *cudaDev) destroyGraphsLocked() error {
	var errs []error
	for cg := range g.graphs {
		cg.destroyed = true
		if err := cg.exec.Destroy(); err != nil {
			errs = append(errs, cudaErr("cuGraphExecDestroy", err))
		}
	}
	g.graphs = nil
	return errors.Join(errs...)
}
