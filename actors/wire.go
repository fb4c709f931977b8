package actors

import (
	"github.com/asynkron/protoactor-go/remote"

	"github.com/shlyuz/shlyuz/cluster/wire"
)

// The wire form of every message of the cluster kinds: each
// converts itself into a wire.Envelope when it leaves the node (protoactor's
// RootSerializable hook) and is registered so the receiving node can decode
// it. Messages sent within a node are never encoded.

// clusterMessages are the messages that may cross nodes, one zero value each.
var clusterMessages = []remote.RootSerializable{
	&keyCheck{},
	&keyState{},
	&reserved{},
	&keyRevoke{},
	&keyLimit{},
	&keyUpdate{},
	&acctReserve{},
	&acctSettle{},
	&drain{},
	&acctBalance{},
	&acctBalanceReply{},
	&acctApply{},
	&acctApplied{},
	&settleAck{},
	&settleAcks{},
	&holdsQuery{},
	&holdsReport{},
	&videoWake{},
	&videoCancel{},
	&videoAck{},
	&videoEnded{},
	&acctSettleVideo{},
	&acctVideoSettled{},
	&sliceReturn{},
	&sliceRecall{},
}

func init() {
	for _, m := range clusterMessages {
		wire.Register(m)
	}
}

func (m *keyCheck) Serialize() (remote.RootSerialized, error)         { return wire.Encode(m) }
func (m *keyState) Serialize() (remote.RootSerialized, error)         { return wire.Encode(m) }
func (m *reserved) Serialize() (remote.RootSerialized, error)         { return wire.Encode(m) }
func (m *keyRevoke) Serialize() (remote.RootSerialized, error)        { return wire.Encode(m) }
func (m *keyLimit) Serialize() (remote.RootSerialized, error)         { return wire.Encode(m) }
func (m *keyUpdate) Serialize() (remote.RootSerialized, error)        { return wire.Encode(m) }
func (m *acctReserve) Serialize() (remote.RootSerialized, error)      { return wire.Encode(m) }
func (m *acctSettle) Serialize() (remote.RootSerialized, error)       { return wire.Encode(m) }
func (m *drain) Serialize() (remote.RootSerialized, error)            { return wire.Encode(m) }
func (m *acctBalance) Serialize() (remote.RootSerialized, error)      { return wire.Encode(m) }
func (m *acctBalanceReply) Serialize() (remote.RootSerialized, error) { return wire.Encode(m) }
func (m *acctApply) Serialize() (remote.RootSerialized, error)        { return wire.Encode(m) }
func (m *acctApplied) Serialize() (remote.RootSerialized, error)      { return wire.Encode(m) }
func (m *settleAck) Serialize() (remote.RootSerialized, error)        { return wire.Encode(m) }
func (m *settleAcks) Serialize() (remote.RootSerialized, error)       { return wire.Encode(m) }
func (m *holdsQuery) Serialize() (remote.RootSerialized, error)       { return wire.Encode(m) }
func (m *holdsReport) Serialize() (remote.RootSerialized, error)      { return wire.Encode(m) }
func (m *videoWake) Serialize() (remote.RootSerialized, error)        { return wire.Encode(m) }
func (m *videoCancel) Serialize() (remote.RootSerialized, error)      { return wire.Encode(m) }
func (m *videoAck) Serialize() (remote.RootSerialized, error)         { return wire.Encode(m) }
func (m *videoEnded) Serialize() (remote.RootSerialized, error)       { return wire.Encode(m) }
func (m *acctSettleVideo) Serialize() (remote.RootSerialized, error)  { return wire.Encode(m) }
func (m *acctVideoSettled) Serialize() (remote.RootSerialized, error) { return wire.Encode(m) }
func (m *sliceReturn) Serialize() (remote.RootSerialized, error)      { return wire.Encode(m) }
func (m *sliceRecall) Serialize() (remote.RootSerialized, error)      { return wire.Encode(m) }
