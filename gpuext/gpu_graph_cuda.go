//go:build cuda

package gpuext

import (
	"context"
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

// graphBuild implements backend: a kernel node per launch (loaded and
// checked as Launch does), a memcpy node per CopyFromBuffer, a memset node
// per Fill, in a chain, then cuGraphInstantiate. The graph itself is
// destroyed once instantiated; the executable graph keeps what it needs.
func (g *cudaDev) graphBuild(ops []graphOp) (any, error) {
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
				c := op.cfg
				le := &LaunchError{Call: "Launch", Module: op.k.mod.Name, Kernel: op.k.name, Grid: c.grid, Block: c.block, Shared: c.shared}
				f, call, err := g.prepareLocked(op.k.mod, op.k.name, c.block, c.shared)
				if err != nil {
					le.Call, le.Err = call, err
					return le
				}
				params := paramSlots(op.args)
				ptrs := make([]unsafe.Pointer, len(params))
				for i := range params {
					ptrs[i] = unsafe.Pointer(&params[i])
				}
				node, err = graph.AddKernelNodeWithArgs(prev, f.fn, c.grid.X, c.grid.Y, c.grid.Z,
					c.block.X, c.block.Y, c.block.Z, c.shared, ptrs)
				if err != nil {
					le.Call, le.Err = "cuGraphAddKernelNode", cudaErr("cuGraphAddKernelNode", err)
					return le
				}
				cg.last = launchRef{op.k.mod, op.k.name, c.grid, c.block, c.shared}
			case opCopy:
				if node, err = graph.AddMemcpyDtoDNode(prev, cu.DevicePtr(op.dst.(*cudaMem).ptr), cu.DevicePtr(op.src.(*cudaMem).ptr), op.bytes, g.ctx); err != nil {
					return fmt.Errorf("%s: %w", op, cudaErr("cuGraphAddMemcpyNode", err))
				}
			case opFill:
				if node, err = graph.AddMemsetD32Node(prev, cu.DevicePtr(op.dst.(*cudaMem).ptr), op.word, op.words, g.ctx); err != nil {
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

// graphLaunch implements backend: one cuGraphLaunch on the default
// stream, the stream Launch, the copies and Time's events use.
func (g *cudaDev) graphLaunch(_ context.Context, gr *Graph) (*GraphLaunch, error) {
	cg, ok := gr.exec.(*cudaGraph)
	if !ok || cg == nil {
		return nil, errors.New("not a graph of this GPU backend")
	}
	err := g.do(func() error {
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
	if err != nil {
		return nil, err
	}
	return &GraphLaunch{}, nil
}

// graphDestroy implements backend. A graph of a context that a fault
// destroyed, or of a closed device, went with it: nothing to free.
func (g *cudaDev) graphDestroy(h any) error {
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
