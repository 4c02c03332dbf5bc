# The one test command is `make test`; .ci/run calls it.

GO        ?= go
FUZZTIME  ?= 10s
BENCHTIME ?= 1s
COUNT     ?= 1
STATICCHECK = honnef.co/go/tools/cmd/staticcheck@v0.8.2

# Fuzz targets, as package:target; go test -fuzz takes one at a time.
FUZZ_TARGETS = ./fuzz:FuzzTrie ./fuzz:FuzzDeriveSha

.PHONY: test vet race allocs fuzz-short fuzz bench lint

## test: vet, race-enabled tests, allocation tests, and a short run of each fuzz target.
test: vet race allocs fuzz-short

vet:
	$(GO) vet ./...
	GOARCH=386 $(GO) vet ./...
	GOARCH=arm64 $(GO) vet ./...

race:
	$(GO) test -race -count=1 ./...

# Allocation counts are exact only without the race detector.
allocs:
	$(GO) test -count=1 -run 'Allocs' ./...

fuzz-short:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$name for $(FUZZTIME)"; \
		$(GO) test $$pkg -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) || exit 1; \
	done

## fuzz: each fuzz target for FUZZTIME (default here 10s; try FUZZTIME=10m).
fuzz: fuzz-short

## bench: every benchmark, with allocations.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) -count $(COUNT) ./...

## lint: formatting, vet and staticcheck.
lint:
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
