# The one test command is `make test`; .ci/run calls it. Four modules: the
# package (.), compat/ and compat/internal/gencli/ (go-ethereum as the
# oracle and the generator of test data), and cmd/trieroot/ (the tool).

GO        ?= go
FUZZTIME  ?= 10s
BENCHTIME ?= 1s
COUNT     ?= 1
STATICCHECK = honnef.co/go/tools/cmd/staticcheck@v0.8.2

# Fuzz targets, as package-folder:target; go test -fuzz takes one at a time.
# compat is a module of its own, with go-ethereum as the oracle.
FUZZ_TARGETS = fuzz:FuzzTrie fuzz:FuzzDeriveSha fuzz:FuzzSubtries fuzz:FuzzUpdateBranch fuzz:FuzzParallel \
	fuzz:FuzzProofs fuzz:FuzzVerifyProof compat:FuzzDifferential compat:FuzzProofsGeth

.PHONY: test vet race allocs fuzz-short fuzz bench compare lint generate

## test: vet, race-enabled tests of both modules, allocation tests, and a short run of each fuzz target.
test: vet race allocs fuzz-short

vet:
	$(GO) vet ./...
	GOARCH=386 $(GO) vet ./...
	GOARCH=arm64 $(GO) vet ./...
	cd compat && $(GO) vet ./...
	cd compat/internal/gencli && $(GO) vet ./...
	cd cmd/trieroot && $(GO) vet ./...

# Each suite runs twice: with SIMD Keccak lanes where the machine has them,
# and with the purego tag, which hashes one node at a time.
race:
	$(GO) test -race -count=1 ./...
	$(GO) test -race -count=1 -tags purego ./...
	cd compat && $(GO) test -race -count=1 ./...
	cd compat && $(GO) test -race -count=1 -tags purego ./...
	cd cmd/trieroot && $(GO) test -race -count=1 ./...

# Allocation counts are exact only without the race detector.
allocs:
	$(GO) test -count=1 -run 'Allocs' ./...

fuzz-short:
	@for t in $(FUZZ_TARGETS); do \
		dir=$${t%%:*}; name=$${t##*:}; \
		for tags in "" purego; do \
			echo "fuzz $$name for $(FUZZTIME) $${tags:+(tags $$tags)}"; \
			(cd $$dir && $(GO) test . -tags "$$tags" -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME)) || exit 1; \
		done; \
	done

## fuzz: each fuzz target for FUZZTIME (default here 10s; try FUZZTIME=10m).
fuzz: fuzz-short

## bench: this module's benchmarks, each beside Keccak alone over the same node blobs (COUNT=6 for benchstat).
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) -count $(COUNT) ./... | tee bench.out
	cd compat && $(GO) tool benchstat -col /impl ../bench.out

## compare: stacktrie beside go-ethereum in one run, with benchstat's ratio table (COUNT runs, default 6).
compare:
	compat/compare.sh $(if $(filter-out 1,$(COUNT)),$(COUNT))

## lint: formatting, vet and staticcheck.
lint:
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	cd cmd/trieroot && $(GO) run $(STATICCHECK) ./...

## generate: rewrite generated code and go-ethereum's test data.
generate:
	$(GO) generate ./...
	cd compat && $(GO) generate ./...
