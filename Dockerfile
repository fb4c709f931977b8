# The gateway's image: docker build -t shlyuz . (used by docker-compose.yml)
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /shlyuz ./cmd/shlyuz

FROM gcr.io/distroless/static-debian12
COPY --from=build /shlyuz /shlyuz
EXPOSE 8080
ENTRYPOINT ["/shlyuz", "serve", "--listen", "0.0.0.0:8080"]
