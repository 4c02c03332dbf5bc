package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// readPlain reads `geth dump` without --iterative: one JSON object,
// {"root": ..., "accounts": {ADDRESS: account, ...}}, whose accounts are
// keyed by address, in an order that is not the trie's. geth builds this
// document whole in memory before writing it; trieroot reads it whole too,
// checks each account as it comes and sorts their leaves before inserting
// them into t. Memory holds the document and about 150 bytes an account.
func (d *stateDump) readPlain(in *input, t trie) error {
	data, err := in.readAll()
	if err != nil {
		return err
	}
	p := &plainDump{in: in, data: data, dec: json.NewDecoder(bytes.NewReader(data)), line: 1}
	if err := p.read(d); err != nil {
		return err
	}
	return p.leaves.insert(in, t)
}

// plainDump is the state of reading a plain dump: the decoder over the
// document and the line it has reached, for messages.
type plainDump struct {
	in     *input
	data   []byte
	dec    *json.Decoder
	offset int64 // where line was counted to
	line   int
	leaves leafSorter
}

// read reads the document's object: its root, its accounts, and nothing
// else, for a field it does not know could change what the root means.
func (p *plainDump) read(d *stateDump) error {
	if err := p.expect(json.Delim('{'), "the dump is not a JSON object"); err != nil {
		return err
	}
	seen := map[string]int{}
	for p.dec.More() {
		name, line, err := p.key()
		if err != nil {
			return err
		}
		if first, ok := seen[name]; ok {
			return p.in.errorAt(line, "%q appears twice, first on line %d", name, first)
		}
		seen[name] = line
		switch name {
		case "root":
			err = p.root(d, line)
		case "accounts":
			err = p.accounts(d)
		case "next":
			err = p.next(line)
		default:
			err = p.in.errorAt(line, "unknown field %q: a geth dump holds root, accounts and, when cut short, next", abbreviate(name))
		}
		if err != nil {
			return err
		}
	}
	if err := p.expect(json.Delim('}'), "the dump's object does not close"); err != nil {
		return err
	}
	if _, err := p.dec.Token(); !errors.Is(err, io.EOF) {
		return p.in.errorAt(p.lineAt(p.dec.InputOffset()), "more after the dump's closing brace")
	}
	return nil
}

// root takes the state root, which geth writes as bare hex.
func (p *plainDump) root(d *stateDump, line int) error {
	var text string
	if err := p.dec.Decode(&text); err != nil {
		return p.in.errorAt(line, "root is not a hex string")
	}
	if err := d.takeRoot(line, text); err != nil {
		return p.in.errorAt(line, "%v", err)
	}
	return nil
}

// next refuses a partial dump, which geth dump --limit writes with the key
// of the account it stopped before: its accounts cannot make its root.
func (p *plainDump) next(line int) error {
	var text string
	if err := p.dec.Decode(&text); err != nil {
		return p.in.errorAt(line, "next is not a hex string")
	}
	if text == "" || text == "0x" {
		return nil
	}
	return p.in.errorAt(line, "a partial dump, cut short before the account of key %s (geth dump --limit): its accounts cannot make the state root", abbreviate(text))
}

// accounts reads the accounts object, checking each account as it comes.
func (p *plainDump) accounts(d *stateDump) error {
	if err := p.expect(json.Delim('{'), "accounts is not an object of address to account"); err != nil {
		return err
	}
	for p.dec.More() {
		name, line, err := p.key()
		if err != nil {
			return err
		}
		var a dumpAccount
		if err := p.dec.Decode(&a); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return p.endsEarly()
			}
			return p.in.errorAt(line, "account %s: %v", abbreviate(name), err)
		}
		if a.Balance == nil {
			return p.in.errorAt(line, "account %s has no balance", abbreviate(name))
		}
		if err := keyedBy(name, &a); err != nil {
			return p.in.errorAt(line, "%v", err)
		}
		key, leaf, err := d.accounts.check(&a)
		if err != nil {
			return p.in.errorAt(line, "account %s: %v", abbreviate(name), err)
		}
		p.leaves.add(key, leaf, line)
	}
	return p.expect(json.Delim('}'), "the accounts object does not close")
}

// keyedBy checks the name an account is filed under against the account's
// own address and key, and fills in the one the account leaves out. geth
// files an account under its address, or under pre(KEY), its hashed
// address, when it has no preimage of the hash.
func keyedBy(name string, a *dumpAccount) error {
	if key, ok := strings.CutPrefix(name, "pre("); ok && strings.HasSuffix(key, ")") {
		key = strings.TrimSuffix(key, ")")
		if _, err := decodeFixedHex(key, 32); err != nil {
			return fmt.Errorf("account %s: key %w", abbreviate(name), err)
		}
		if a.Key != nil && !strings.EqualFold(*a.Key, key) {
			return fmt.Errorf("account %s holds key %s", abbreviate(name), abbreviate(*a.Key))
		}
		a.Key = &key
		return nil
	}
	if _, err := decodeFixedHex(name, 20); err != nil {
		return fmt.Errorf("account %q: an account's name is its address or pre(KEY): %w", abbreviate(name), err)
	}
	if a.Address != nil && !strings.EqualFold(*a.Address, name) {
		return fmt.Errorf("account %s holds address %s", name, abbreviate(*a.Address))
	}
	a.Address = &name
	return nil
}

// key reads an object's next key and returns it with its line.
func (p *plainDump) key() (string, int, error) {
	tok, err := p.token()
	if err != nil {
		return "", 0, err
	}
	line := p.lineAt(p.dec.InputOffset())
	name, ok := tok.(string)
	if !ok {
		return "", 0, p.in.errorAt(line, "not JSON: %v where a key should be", tok)
	}
	return name, line, nil
}

// expect reads the next token, which must be want.
func (p *plainDump) expect(want json.Delim, what string) error {
	tok, err := p.token()
	if err != nil {
		return err
	}
	if tok != want {
		return p.in.errorAt(p.lineAt(p.dec.InputOffset()), "%s", what)
	}
	return nil
}

// token reads the next token; an error is placed at its line.
func (p *plainDump) token() (json.Token, error) {
	tok, err := p.dec.Token()
	var syntax *json.SyntaxError
	switch {
	case err == nil:
		return tok, nil
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return nil, p.endsEarly()
	case errors.As(err, &syntax):
		return nil, p.in.errorAt(p.lineAt(syntax.Offset), "not JSON: %v", err)
	}
	return nil, p.in.errorAt(p.lineAt(p.dec.InputOffset()), "%v", err)
}

// endsEarly is the error of a document that ends inside its object.
func (p *plainDump) endsEarly() error {
	return p.in.errorAt(p.lineAt(int64(len(p.data))), "the dump ends early: is it cut short?")
}

// lineAt is the number of the line that holds the byte at offset.
func (p *plainDump) lineAt(offset int64) int {
	offset = min(offset, int64(len(p.data)))
	if offset < p.offset {
		p.offset, p.line = 0, 1
	}
	p.line += bytes.Count(p.data[p.offset:offset], []byte("\n"))
	p.offset = offset
	return p.line
}
