.PHONY: build image test lint bench run

build:
	go build -o forewarn ./cmd/forewarn

image:
	./scripts/image.sh

run:
	go run ./cmd/forewarn serve --dev

test:
	./scripts/test.sh

lint:
	test -z "$$(gofmt -l .)" && go vet ./... && scripts/deps.sh && scripts/staticcheck.sh

bench:
	go test -run '^$$' -bench . -benchmem ./...
	./scripts/load.sh --short
	./scripts/bench-fleet.sh --short
	./scripts/fleet-load.sh --short
