package ptx

// Block is a basic block of a kernel: the instructions [Start, End) run one
// after the other; Succs are the blocks control may go to next, with -1 for
// the kernel's exit (ret, exit, or running off the end).
type Block struct {
	Start, End int
	Succs      []int
	IPDom      int // the immediate post-dominator block; -1: the exit; -2: none (the block never reaches the exit)
}

// Blocks splits the kernel into basic blocks and computes each one's
// immediate post-dominator. Parse already stored the result the executor
// needs in each bra's Reconv; Blocks is there for listings and tests.
func (k *Kernel) Blocks() []Block {
	return buildBlocks(k.Instrs)
}

// isExit reports whether an instruction ends a thread.
func isExit(in *Instr) bool { return in.Op == OpRet || in.Op == OpExit }

// buildBlocks finds the leaders (the first instruction, each branch target,
// each instruction after a branch, ret or exit), links the blocks, and runs
// the post-dominator computation.
func buildBlocks(ins []Instr) []Block {
	n := len(ins)
	if n == 0 {
		return nil
	}
	leader := make([]bool, n+1)
	leader[0] = true
	for i := range ins {
		in := &ins[i]
		if in.Op == OpBra {
			leader[in.Target] = true
		}
		if in.Op == OpBra || isExit(in) {
			leader[i+1] = true
		}
	}
	blockOf := make([]int, n+1)
	var blocks []Block
	for i := 0; i < n; i++ {
		if leader[i] {
			if len(blocks) > 0 {
				blocks[len(blocks)-1].End = i
			}
			blocks = append(blocks, Block{Start: i})
		}
		blockOf[i] = len(blocks) - 1
	}
	blocks[len(blocks)-1].End = n
	blockOf[n] = -1 // running off the end is the exit
	for b := range blocks {
		last := &ins[blocks[b].End-1]
		var succ []int
		switch {
		case last.Op == OpBra:
			succ = append(succ, blockOf[last.Target])
			if last.Guard >= 0 && blockOf[blocks[b].End] != blockOf[last.Target] {
				succ = append(succ, blockOf[blocks[b].End])
			}
		case isExit(last):
			succ = append(succ, -1)
			if last.Guard >= 0 && blockOf[blocks[b].End] != -1 {
				succ = append(succ, blockOf[blocks[b].End])
			}
		default:
			succ = append(succ, blockOf[blocks[b].End])
		}
		blocks[b].Succs = succ
	}
	postDominators(blocks)
	return blocks
}

// postDominators sets each block's IPDom by the iterative algorithm of
// Cooper, Harvey and Kennedy ("A Simple, Fast Dominance Algorithm") run on
// the reversed control-flow graph, rooted at a virtual exit node that every
// ret, exit and the end of the kernel lead to. Blocks from which the exit
// cannot be reached (an endless loop) get -2.
func postDominators(blocks []Block) {
	nb := len(blocks)
	exit := nb // the virtual exit's node number
	// Predecessors in the reversed graph are the successors in the CFG;
	// successors in the reversed graph are the CFG predecessors.
	preds := make([][]int, nb+1) // CFG predecessors, with the exit's
	node := func(s int) int {
		if s < 0 {
			return exit
		}
		return s
	}
	for b := range blocks {
		for _, s := range blocks[b].Succs {
			preds[node(s)] = append(preds[node(s)], b)
		}
	}
	// Postorder of the reversed graph from the exit, iteratively (deep
	// graphs must not exhaust the stack).
	order := make([]int, 0, nb+1)
	po := make([]int, nb+1) // postorder number, -1 unvisited
	for i := range po {
		po[i] = -1
	}
	visited := make([]bool, nb+1)
	type frame struct{ n, i int }
	stack := []frame{{exit, 0}}
	visited[exit] = true
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.i < len(preds[f.n]) {
			m := preds[f.n][f.i]
			f.i++
			if !visited[m] {
				visited[m] = true
				stack = append(stack, frame{m, 0})
			}
			continue
		}
		po[f.n] = len(order)
		order = append(order, f.n)
		stack = stack[:len(stack)-1]
	}
	idom := make([]int, nb+1)
	for i := range idom {
		idom[i] = -1
	}
	idom[exit] = exit
	intersect := func(a, b int) int {
		for a != b {
			for po[a] < po[b] {
				a = idom[a]
			}
			for po[b] < po[a] {
				b = idom[b]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for i := len(order) - 1; i >= 0; i-- { // reverse postorder
			b := order[i]
			if b == exit {
				continue
			}
			nd := -1
			for _, s := range blocks[b].Succs {
				s = node(s)
				if idom[s] < 0 {
					continue
				}
				if nd < 0 {
					nd = s
				} else {
					nd = intersect(s, nd)
				}
			}
			if nd != idom[b] {
				idom[b] = nd
				changed = true
			}
		}
	}
	for b := range blocks {
		switch {
		case po[b] < 0:
			blocks[b].IPDom = -2
		case idom[b] == exit:
			blocks[b].IPDom = -1
		default:
			blocks[b].IPDom = idom[b]
		}
	}
}

// computeReconv sets Reconv of every bra: the first instruction of the
// immediate post-dominator of the block the branch ends, len(Instrs) when
// that is the exit (or when the block never reaches the exit, where no
// reconvergence can happen and the warp's lanes only leave by exiting).
func computeReconv(k *Kernel) {
	blocks := buildBlocks(k.Instrs)
	n := int32(len(k.Instrs))
	for _, b := range blocks {
		in := &k.Instrs[b.End-1]
		if in.Op != OpBra {
			continue
		}
		in.Reconv = n
		if b.IPDom >= 0 {
			in.Reconv = int32(blocks[b.IPDom].Start)
		}
	}
}
