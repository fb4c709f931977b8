package main

import (
	_ "github.com/asynkron/protoactor-go/actor"
	_ "github.com/asynkron/protoactor-go/cluster"
	_ "github.com/asynkron/protoactor-go/cluster/clusterproviders/automanaged"
	_ "github.com/asynkron/protoactor-go/cluster/clusterproviders/test"
	_ "github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	_ "github.com/asynkron/protoactor-go/remote"
	_ "github.com/cockroachdb/cockroach-go/v2/crdb"
	_ "github.com/gofiber/fiber/v2"
	_ "github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/openai/openai-go/v3"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/prometheus/client_golang/prometheus/promhttp"
	_ "github.com/sony/gobreaker/v2"
	_ "gopkg.in/yaml.v3"
	_ "modernc.org/sqlite"
)

func main() {}
