package actors

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// supervisorStrategy restarts a failed child alone, up to 10 times a second;
// a restarted provider actor keeps its upstream's guard (the breaker and the
// slots in use live outside the mailbox), so a restart loses nothing.
var supervisorStrategy = actor.NewOneForOneStrategy(10, time.Second, actor.DefaultDecider)

// spawnChild asks the root supervisor to start a named child.
type spawnChild struct {
	Name  string
	Props *actor.Props
}

type spawned struct {
	PID *actor.PID
	Err error
}

// supervisor is the root of the gateway's own actors (the provider actors);
// the cluster's kinds are supervised by the cluster with the same strategy.
type supervisor struct{}

func (supervisor) Receive(ctx actor.Context) {
	if m, ok := ctx.Message().(*spawnChild); ok {
		pid, err := ctx.SpawnNamed(m.Props, m.Name)
		ctx.Respond(&spawned{PID: pid, Err: err})
	}
}

// startSupervisor spawns the root supervisor.
func startSupervisor(sys *actor.ActorSystem) (*actor.PID, error) {
	return sys.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return supervisor{} },
		actor.WithSupervisor(supervisorStrategy)), "shlyuz")
}

// spawnUnder starts a named child of the root supervisor.
func spawnUnder(sys *actor.ActorSystem, root *actor.PID, name string, props *actor.Props) (*actor.PID, error) {
	res, err := sys.Root.RequestFuture(root, &spawnChild{Name: name, Props: props}, 10*time.Second).Result()
	if err != nil {
		return nil, err
	}
	s := res.(*spawned)
	return s.PID, s.Err
}
