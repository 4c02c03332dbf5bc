package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"slices"

	"github.com/stacktrie/stacktrie/derivesha"
)

// payloadCommand is trieroot payload: it rebuilds the block header of an
// execution payload and checks its hash against the payload's blockHash.
type payloadCommand struct {
	outputFlags
	parentBeaconRoot string
	fork             string
}

func (c *payloadCommand) flags(fs *flag.FlagSet) {
	c.define(fs)
	fs.StringVar(&c.parentBeaconRoot, "parent-beacon-root", "",
		"the parent beacon block root, `HASH`, of a Cancun or later payload whose file lacks it")
	fs.StringVar(&c.fork, "fork", "",
		"the payload's fork, `NAME`: paris, shanghai, cancun or prague; needed only for a bare Prague payload, whose fields are Cancun's")
}

// fork is an execution-layer fork whose header trieroot rebuilds. Each adds
// fields to the header of the one before.
type fork int

const (
	paris    fork = iota // the merge: difficulty 0, prevRandao in mixHash
	shanghai             // withdrawalsRoot
	cancun               // blobGasUsed, excessBlobGas, parentBeaconBlockRoot
	prague               // requestsHash
)

var forkNames = []string{"paris", "shanghai", "cancun", "prague"}

func (f fork) String() string { return forkNames[f] }

// beaconForks maps beacon-API versions to the execution forks whose
// payloads they carry. Fulu's payload is Osaka's, whose header is Prague's.
var beaconForks = map[string]fork{
	"bellatrix": paris, "capella": shanghai, "deneb": cancun, "electra": prague, "fulu": prague,
}

func (c *payloadCommand) run(e *env, path string) (*report, error) {
	in, err := e.openInput(path, true)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	data, err := in.readAll()
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*report, error) { return nil, &inputError{name: in.name, err: err} }
	src, err := findPayload(data)
	if err != nil {
		return fail(err)
	}
	p, err := decodePayload(src)
	if err != nil {
		return fail(err)
	}
	f, err := c.forkOf(src, p)
	if err != nil {
		return fail(err)
	}
	h := header{payload: p, fork: f}
	if h.parentBeaconRoot, err = c.beaconRoot(src, f); err != nil {
		return fail(err)
	}
	h.transactionsRoot = derivesha.DeriveSha(derivesha.Bytes(p.transactions), nil)
	r := &report{format: c.format()}
	r.add("fork", f.String())
	r.add("transactions", len(p.transactions))
	r.add("transactionsRoot", h.transactionsRoot.String())
	if f >= shanghai {
		h.withdrawalsRoot = withdrawalsRoot(p.withdrawals)
		r.add("withdrawals", len(p.withdrawals))
		r.add("withdrawalsRoot", h.withdrawalsRoot.String())
	}
	if f >= cancun {
		r.add("parentBeaconBlockRoot", hex0x(h.parentBeaconRoot))
	}
	if f >= prague {
		h.requestsHash = requestsHash(src.requests)
		r.add("requestsHash", hex0x(h.requestsHash))
	}
	hash := h.hash()
	r.add("blockHash", hash.String())
	r.add("payloadBlockHash", hex0x(p.blockHash))
	match := bytes.Equal(hash[:], p.blockHash)
	r.add("match", match)
	if !match {
		r.mismatch = &inputError{name: in.name,
			err: fmt.Errorf("the header rebuilt from the payload hashes to %s, not to its blockHash %s", hash, hex0x(p.blockHash))}
	}
	return r, nil
}

// forkOf is the payload's fork: the fields it has tell, with execution
// requests marking Prague; the beacon API's version and --fork must agree.
func (c *payloadCommand) forkOf(src *payloadSource, p *executionPayload) (fork, error) {
	f := paris
	if p.withdrawals != nil {
		f = shanghai
	}
	if (p.blobGasUsed == nil) != (p.excessBlobGas == nil) {
		return 0, errors.New("execution payload has one of blobGasUsed and excessBlobGas without the other")
	}
	if p.blobGasUsed != nil {
		if f != shanghai {
			return 0, errors.New("execution payload has blob gas fields but no withdrawals")
		}
		f = cancun
	}
	if src.requestsKnown {
		if f != cancun {
			return 0, fmt.Errorf("execution requests come with a %s payload; they need Cancun's fields", f)
		}
		f = prague
	}
	if src.beaconVersion != "" {
		want, ok := beaconForks[src.beaconVersion]
		switch {
		case !ok:
			return 0, fmt.Errorf("beacon block version %q: trieroot knows bellatrix to fulu, Paris to Prague payloads", src.beaconVersion)
		case want != f:
			return 0, fmt.Errorf("beacon block version %s, but its payload has the fields of %s", src.beaconVersion, f)
		}
	}
	if c.fork == "" {
		return f, nil
	}
	given := slices.Index(forkNames, c.fork)
	switch {
	case given < 0:
		return 0, fmt.Errorf("--fork %q: want one of %v", c.fork, forkNames)
	case fork(given) == prague && f == cancun:
		// A bare V3 payload of a Prague block without requests: the engine
		// API passes requests beside the payload, and there are none.
		return prague, nil
	case fork(given) != f:
		return 0, fmt.Errorf("--fork %s, but the payload has the fields of %s", c.fork, f)
	}
	return f, nil
}

// beaconRoot is the parent beacon block root of a Cancun or later header:
// the file's or --parent-beacon-root, which must agree when both are given.
func (c *payloadCommand) beaconRoot(src *payloadSource, f fork) ([]byte, error) {
	root := src.parentBeaconRoot
	if c.parentBeaconRoot != "" {
		given, err := decodeFixedHex(c.parentBeaconRoot, 32)
		if err != nil {
			return nil, fmt.Errorf("--parent-beacon-root %w", err)
		}
		if f < cancun {
			return nil, fmt.Errorf("--parent-beacon-root given, but a %s header has no parent beacon block root", f)
		}
		if root != nil && !bytes.Equal(root, given) {
			return nil, fmt.Errorf("--parent-beacon-root %s differs from the file's %s", hex0x(given), hex0x(root))
		}
		root = given
	}
	if f >= cancun && root == nil {
		return nil, fmt.Errorf("a %s header holds the parent beacon block root, which the file lacks: pass --parent-beacon-root", f)
	}
	return root, nil
}
