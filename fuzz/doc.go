// Package fuzz holds the go test -fuzz targets of the module. Each compares
// the stack trie with the reference trie in internal/reftrie on arbitrary
// input. Run one with, for example:
//
//	go test ./fuzz -run '^$' -fuzz '^FuzzTrie$' -fuzztime 5m
package fuzz
