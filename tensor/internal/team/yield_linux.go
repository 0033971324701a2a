package team

import "syscall"

// osYield gives the thread's CPU to another runnable thread, if any
// (sched_yield): a polling thread that the scheduler put on the same CPU as
// the thread it waits for would otherwise share that CPU with it for whole
// time slices.
func osYield() { syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
