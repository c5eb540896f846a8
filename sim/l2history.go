package sim

// l2Resident reports which share of a launch's footprint (bytes per
// buffer, total) the launches before it on this device left in the
// model's L2, which keeps the model's WarmCapacity across launches, and
// records the launch (timing.L2History.Resident says how).
func (d *Device) l2Resident(bytes map[int]int64, total int64) float64 {
	return d.l2.Resident(d.model.WarmCapacity(&d.model.GPU), bytes, total)
}
