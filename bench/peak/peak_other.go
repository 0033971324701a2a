//go:build !amd64

package peak

func probes() []probe { return nil }
