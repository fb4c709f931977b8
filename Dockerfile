# The gateway's image: docker build -t shlyuz . (used by docker-compose.yml)
#   docker run -p 8080:8080 -v "$PWD/data:/data" shlyuz
# serves on 0.0.0.0:8080 with its SQLite database in /data, and in demo mode
# writes the demo key to /data/shlyuz.db.demo-key (readable from the host).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /shlyuz ./cmd/shlyuz && mkdir /data

FROM gcr.io/distroless/static-debian12
COPY --from=build /shlyuz /shlyuz
COPY --from=build /data /data
WORKDIR /data
VOLUME /data
ENV SHLYUZ_LISTEN=0.0.0.0:8080 SHLYUZ_DB=sqlite:///data/shlyuz.db
EXPOSE 8080
HEALTHCHECK --interval=5s --timeout=3s --retries=5 CMD ["/shlyuz", "health"]
ENTRYPOINT ["/shlyuz"]
CMD ["serve"]
