package sim

import "fmt"

// Args are a launch's arguments in CUDA parameter order: *Global[T] buffers
// and scalars (int, int32, int64, uint64, uint32, float32, float64). A
// mirror reads them once per launch, before any thread runs, so the
// per-thread path never looks at an interface.
type Args []any

// ArgBuf returns argument i as a buffer of T.
func ArgBuf[T Elem](a Args, i int) (*Global[T], error) {
	if i < 0 || i >= len(a) {
		return nil, fmt.Errorf("sim: argument %d missing (%d given)", i, len(a))
	}
	g, ok := a[i].(*Global[T])
	if !ok {
		return nil, fmt.Errorf("sim: argument %d is %T, want *Global[%T]", i, a[i], *new(T))
	}
	return g, nil
}

// ArgInt returns integer argument i as an int.
func ArgInt(a Args, i int) (int, error) {
	if i < 0 || i >= len(a) {
		return 0, fmt.Errorf("sim: argument %d missing (%d given)", i, len(a))
	}
	switch v := a[i].(type) {
	case int:
		return v, nil
	case int32:
		return int(v), nil
	case int64:
		return int(v), nil
	case uint32:
		return int(v), nil
	case uint64:
		return int(v), nil
	}
	return 0, fmt.Errorf("sim: argument %d is %T, want an integer", i, a[i])
}

// ArgF32 returns argument i as a float32.
func ArgF32(a Args, i int) (float32, error) {
	if i < 0 || i >= len(a) {
		return 0, fmt.Errorf("sim: argument %d missing (%d given)", i, len(a))
	}
	v, ok := a[i].(float32)
	if !ok {
		return 0, fmt.Errorf("sim: argument %d is %T, want float32", i, a[i])
	}
	return v, nil
}

// ArgF64 returns argument i as a float64.
func ArgF64(a Args, i int) (float64, error) {
	if i < 0 || i >= len(a) {
		return 0, fmt.Errorf("sim: argument %d missing (%d given)", i, len(a))
	}
	v, ok := a[i].(float64)
	if !ok {
		return 0, fmt.Errorf("sim: argument %d is %T, want float64", i, a[i])
	}
	return v, nil
}
