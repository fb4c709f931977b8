//go:build !linux

package main

import "net"

// reserve takes the gateway's address. Outside Linux it listens from the
// start (a connection made while the gateway starts waits until it serves).
func reserve(at string) (address, error) {
	ln, err := net.Listen("tcp", at)
	if err != nil {
		return nil, err
	}
	return listening{ln}, nil
}
