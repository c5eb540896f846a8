package sim

import (
	"sync/atomic"
	"unsafe"
)

// atomicAdd adds v to *p with a compare-and-swap loop on the element's bits,
// which serves integers and floats alike, and returns the old value.
func atomicAdd[T Elem](p *T, v T) T {
	switch unsafe.Sizeof(v) {
	case 4:
		u := (*uint32)(unsafe.Pointer(p))
		for {
			old := atomic.LoadUint32(u)
			ov := *(*T)(unsafe.Pointer(&old))
			nv := ov + v
			if atomic.CompareAndSwapUint32(u, old, *(*uint32)(unsafe.Pointer(&nv))) {
				return ov
			}
		}
	default:
		u := (*uint64)(unsafe.Pointer(p))
		for {
			old := atomic.LoadUint64(u)
			ov := *(*T)(unsafe.Pointer(&old))
			nv := ov + v
			if atomic.CompareAndSwapUint64(u, old, *(*uint64)(unsafe.Pointer(&nv))) {
				return ov
			}
		}
	}
}
