package actors

import (
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// The video job actor's kind and messages. They are plain structs so the
// cluster can give them wire forms.

// KindVideo is the kind of the video job actors; the identity is the job's id.
const KindVideo = "videojob"

// videoWake activates a job's actor (which resumes the job from the store);
// answered with videoAck.
type videoWake struct{}

// videoCancel asks a job's actor to cancel the job; answered with videoAck
// once the job has ended (cancelled, or finished otherwise first).
type videoCancel struct{}

type videoAck struct{}

// videoEnded is the job's runner telling its actor that the job is over.
type videoEnded struct{}

// acctSettleVideo charges a finished video job durably: the entry is
// committed before the answer (acctVideoSettled), and a charge committed in
// an earlier life of the gateway is found as a duplicate, not charged twice.
type acctSettleVideo struct {
	GenID      string
	KeyID      string
	Amount     shlyuz.Credits
	Generation *shlyuz.Generation
	Now        time.Time
}

type acctVideoSettled struct {
	Charged   shlyuz.Credits // debited now or in an earlier life (a duplicate)
	Duplicate bool
	Err       *shlyuz.Error
}
