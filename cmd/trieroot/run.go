package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1 // wrong input, or a root that differs from the claimed one
	exitUsage = 2 // wrong command line
)

// env is what a run reads and writes.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	progress       progressPolicy
}

// subcommand is one of trieroot's commands, holding its flags.
type subcommand interface {
	// flags defines the command's flags on fs.
	flags(fs *flag.FlagSet)
	// run computes the report for the input at path ("-" for stdin).
	run(e *env, path string) (*report, error)
}

// commandInfo describes a subcommand for dispatch and usage.
type commandInfo struct {
	name, arg, summary string
	// stdinByDefault lets the file be left out, to read standard input.
	stdinByDefault bool
	new            func() subcommand
}

var commands = []commandInfo{
	{"kv", "[FILE|-]", "root of KEY VALUE hex pairs, one pair a line", true, func() subcommand { return new(kvCommand) }},
	{"list", "[FILE|-]", "DeriveSha root of hex items, one a line", true, func() subcommand { return new(listCommand) }},
	{"payload", "FILE|-", "rebuild an execution payload's block header and check its hash", false, func() subcommand { return new(payloadCommand) }},
	{"state", "FILE|-", "check a `geth dump` state dump's storage and state roots", false, func() subcommand { return new(stateCommand) }},
	{"geth", "DATADIR", "check a go-ethereum database's flat state against its trie, in place", false, func() subcommand { return new(gethCommand) }},
}

// run runs trieroot with the command-line arguments args (without the
// program name) and returns the exit status. A progress bar is drawn only
// when stderr is a terminal.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr,
		progress: progressPolicy{enabled: isTerminal(stderr), delay: time.Second}}
	return e.run(args)
}

func (e *env) run(args []string) int {
	cmd, path, status := e.parseArgs(args)
	if cmd == nil {
		return status
	}
	rep, err := cmd.run(e, path)
	if err != nil {
		var located *inputError
		if errors.As(err, &located) {
			fmt.Fprintln(e.stderr, err)
		} else {
			fmt.Fprintf(e.stderr, "trieroot: %v\n", err)
		}
		return exitFail
	}
	if err := rep.print(e.stdout); err != nil {
		fmt.Fprintf(e.stderr, "trieroot: %v\n", err)
		return exitFail
	}
	if rep.mismatch != nil {
		fmt.Fprintln(e.stderr, rep.mismatch)
		return exitFail
	}
	return exitOK
}

// parseArgs finds the subcommand and its input in args. When there is
// nothing to run, because args ask for help or are wrong, it has written
// what to say and returns a nil command and the exit status.
func (e *env) parseArgs(args []string) (subcommand, string, int) {
	if len(args) == 0 {
		usage(e.stderr)
		return nil, "", exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		usage(e.stdout)
		return nil, "", exitOK
	}
	i := slices.IndexFunc(commands, func(c commandInfo) bool { return c.name == args[0] })
	if i < 0 {
		fmt.Fprintf(e.stderr, "trieroot: unknown command %q; run 'trieroot help' for the list\n", args[0])
		return nil, "", exitUsage
	}
	info := &commands[i]
	cmd := info.new()
	fs := flag.NewFlagSet("trieroot "+info.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cmd.flags(fs)
	files, err := parseInterleaved(fs, args[1:])
	switch {
	case errors.Is(err, flag.ErrHelp):
		commandUsage(e.stdout, info, fs)
		return nil, "", exitOK
	case err != nil: // said below
	case len(files) > 1:
		err = fmt.Errorf("one file at most, got %d", len(files))
	case len(files) == 1:
		return cmd, files[0], exitOK
	case info.stdinByDefault:
		return cmd, "-", exitOK
	default:
		err = errors.New("no file given (use - for standard input)")
	}
	fmt.Fprintf(e.stderr, "trieroot %s: %v; run 'trieroot %s -h' for usage\n", info.name, err, info.name)
	return nil, "", exitUsage
}

// parseInterleaved parses flags that may stand before, between or after
// the positional arguments, which it returns; after "--" everything is
// positional.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// usage lists the commands.
func usage(w io.Writer) {
	var b strings.Builder
	b.WriteString("trieroot computes Ethereum Merkle-Patricia trie roots and checks them against real data.\n\nUsage:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  trieroot %-7s [flags] %-9s %s\n", c.name, c.arg, c.summary)
	}
	b.WriteString("\nRun 'trieroot COMMAND -h' for a command's flags.\n")
	io.WriteString(w, b.String())
}

// commandUsage describes a command and its flags.
func commandUsage(w io.Writer, info *commandInfo, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: trieroot %s [flags] %s\n\n%s.\n\nFlags:\n", info.name, info.arg, upperFirst(info.summary))
	fs.SetOutput(w)
	fs.PrintDefaults()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
