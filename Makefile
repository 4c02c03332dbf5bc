# The one test command is `make test`; .ci/run calls it. Four modules: the
# package (.), compat/ and compat/internal/gencli/ (go-ethereum as the
# oracle and the generator of test data), and cmd/trieroot/ (the tool).

GO        ?= go
# A count, not a duration: a duration-bounded -fuzztime can fail with a bare
# "context deadline exceeded" when it expires (go.dev/issue/75804, unfixed in
# Go 1.26), which a count never does. 20000 runs take 2 to 15 s a target here.
FUZZTIME  ?= 20000x
# Go shrinks each new interesting input for up to a minute by default, with
# no progress meanwhile: a short run keeps it brief.
FUZZMINIMIZE ?= 2s
BENCHTIME ?= 1s
COUNT     ?= 1
STATICCHECK = honnef.co/go/tools/cmd/staticcheck@v0.8.2

# Fuzz targets, as package-folder:target; go test -fuzz takes one at a time.
# compat is a module of its own, with go-ethereum as the oracle.
FUZZ_TARGETS = fuzz:FuzzTrie fuzz:FuzzHashLater fuzz:FuzzDeriveSha fuzz:FuzzSubtries fuzz:FuzzUpdateBranch fuzz:FuzzParallel fuzz:FuzzHashAll \
	fuzz:FuzzSubtrieUnmarshal fuzz:FuzzProofs fuzz:FuzzVerifyProof fuzz:FuzzVerifyRange fuzz:FuzzAccountRLP fuzz:FuzzStateBuilder fuzz:FuzzIncremental fuzz:FuzzUpdater fuzz:FuzzBranchUnmarshal compat:FuzzDifferential compat:FuzzProofsGeth \
	compat:FuzzVerifyRangeGeth compat:FuzzRLPSplit cmd/trieroot:FuzzStateDump

# Every suite runs on each hashing path the machine has (scripts/each-path):
# as built, under GODEBUG=cpu.avx512f=off (the AVX2 path) where the CPU has
# AVX-512, and with -tags purego (one node at a time). TestHashingPath logs
# the path each run took to PATHS_LOG; runs that cannot happen here say why
# in PATHS_SKIP; make test closes with one line over both.
PATHS_LOG  := $(CURDIR)/.paths.log
PATHS_SKIP := $(CURDIR)/.paths.skip
export STACKTRIE_PATHS_LOG := $(PATHS_LOG)
EACH_PATH = GO=$(GO) $(CURDIR)/scripts/each-path

.PHONY: test paths-reset vet generated race allocs cross fuzz-short fuzz bench instructions compare compare-geth lint generate

## test: vet; race-enabled tests of every module and exact allocation counts, each on every hashing path; 386 natively and arm64 under qemu-aarch64; a short run of each fuzz target on every path; then a line saying which paths ran.
test: paths-reset vet race allocs cross fuzz-short
	@scripts/paths-summary $(PATHS_LOG) $(PATHS_SKIP)

paths-reset:
	@rm -f $(PATHS_LOG) $(PATHS_SKIP)

vet: generated
	$(GO) vet ./...
	$(GO) vet -tags purego ./...
	GOARCH=386 $(GO) vet ./...
	GOARCH=arm64 $(GO) vet ./...
	cd compat && $(GO) vet ./...
	cd compat/internal/gencli && $(GO) vet ./...
	cd cmd/trieroot && $(GO) vet ./...

# The generated kernels must be what their generators write: each runs in a
# scratch folder and its output is compared with the committed file.
generated:
	@tmp=$$(mktemp -d) && cp gen_keccakx4.go gen_keccakx8.go $$tmp/ && \
	(cd $$tmp && $(GO) run gen_keccakx4.go && $(GO) run gen_keccakx8.go) && \
	cmp $$tmp/keccakx4_amd64.s keccakx4_amd64.s && cmp $$tmp/keccakx8_amd64.s keccakx8_amd64.s && \
	cmp $$tmp/keccakx8low_amd64.s keccakx8low_amd64.s && \
	echo "generated kernels: up to date"; status=$$?; rm -rf $$tmp; exit $$status

race:
	$(EACH_PATH) -race -count=1 ./...
	cd compat && $(EACH_PATH) -race -count=1 ./...
	cd cmd/trieroot && $(EACH_PATH) -race -count=1 ./...

# Allocation counts are exact only without the race detector.
allocs:
	$(EACH_PATH) -count=1 -run 'Allocs' ./...
	cd compat && $(EACH_PATH) -count=1 -run 'Allocs|AllocatesNothing' ./...

# The root module's tests built for 386, run natively, and built for arm64,
# run under qemu-aarch64, which scripts/install-qemu installs when missing;
# STACKTRIE_RUNNER names the emulator in the paths log. A kernel that runs
# no 32-bit binaries (scripts/runs-386) gets the 386 tests built, not run:
# Go's 386 runtime crashes under Debian's qemu-i386 (7.2) in its signal
# handler. -short trims the longest random runs.
cross:
	@if [ "$$(uname -m)" != x86_64 ]; then \
		echo "386 and arm64: the cross runs are set up for amd64 hosts, and this one is $$(uname -m)" >> $(PATHS_SKIP); \
		exit 0; \
	fi; \
	if GO=$(GO) scripts/runs-386; then \
		echo "== 386: GOARCH=386 go test -short ./..."; \
		GOARCH=386 $(GO) test -short -count=1 ./... || exit 1; \
	else \
		echo "== 386: this kernel runs no 32-bit binaries: GOARCH=386 go test -exec true ./... only builds the tests"; \
		GOARCH=386 $(GO) test -count=1 -exec true ./... || exit 1; \
		echo "386: tests built, not run: this kernel runs no 32-bit binaries, and Go's 386 runtime crashes under qemu-i386" >> $(PATHS_SKIP); \
	fi; \
	if scripts/install-qemu; then \
		echo "== arm64: GOARCH=arm64 go test -short -exec qemu-aarch64 ./..."; \
		STACKTRIE_RUNNER=qemu-aarch64 GOARCH=arm64 $(GO) test -short -count=1 -exec qemu-aarch64 ./... || exit 1; \
	else \
		echo "arm64: qemu-aarch64 could not be installed" >> $(PATHS_SKIP); \
	fi

fuzz-short:
	@for t in $(FUZZ_TARGETS); do \
		dir=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$name for $(FUZZTIME) on each hashing path"; \
		(cd $$dir && $(EACH_PATH) . -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE)) || exit 1; \
	done

## fuzz: each fuzz target for FUZZTIME (default 20000x; try FUZZTIME=10m, which may hit go.dev/issue/75804 at its end).
fuzz: fuzz-short

## bench: this module's benchmarks, each beside Keccak alone over the same node blobs (COUNT=6 for benchstat).
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) -count $(COUNT) ./... | tee bench.out
	cd compat && $(GO) tool benchstat -col /impl ../bench.out

## instructions: the trie's own work, without the permutation, in instructions a key (callgrind): a count that a shared machine's other load leaves alone.
instructions:
	GO=$(GO) scripts/instructions

## compare: stacktrie beside go-ethereum in one process, the sides alternating for COUNT rounds (default 6), with benchstat's ratio table.
compare:
	compat/compare.sh $(if $(filter-out 1,$(COUNT)),$(COUNT))

## compare-geth: trieroot geth beside go-ethereum's VerifyState on one database go-ethereum writes first, 200k accounts and 2M slots (ACCOUNTS=, SLOTS= for another size), COUNT runs alternating (default 6).
compare-geth:
	ACCOUNTS=$(ACCOUNTS) SLOTS=$(SLOTS) compat/internal/gencli/gethdb/compare.sh $(if $(filter-out 1,$(COUNT)),$(COUNT))

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
