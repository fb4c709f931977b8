package actors_test

import "sync/atomic"

func atomicAdd(p *int64) int64 { return atomic.AddInt64(p, 1) }
