package compat

// The samples of cmd/trieroot's tests, with go-ethereum's answers; see
// internal/gencli, a module of its own.
//go:generate go -C internal/gencli run . -out ../../../cmd/trieroot/testdata
