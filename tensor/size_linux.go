package tensor

import "syscall"

// defaultMaxAlloc is the machine's physical memory.
func defaultMaxAlloc() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil || si.Totalram == 0 {
		return 1 << 40
	}
	return int64(si.Totalram) * int64(si.Unit)
}
