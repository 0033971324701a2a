package exchange

import "syscall"

// noFollow makes open fail on a symbolic link.
const noFollow = syscall.O_NOFOLLOW
