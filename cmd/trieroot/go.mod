// trieroot is a module of its own so that its dependencies, a progress bar
// among them, stay out of the stacktrie module.
//
// It requires stacktrie at a placeholder version: go.work, beside this file,
// replaces it with this tree's (../..) for every go command run in this
// folder, and `go install ...@version` ignores go.work. To release, tag the
// stacktrie module, require that version here, run `GOWORK=off go mod tidy`,
// and tag cmd/trieroot/vX.Y.Z. Add no replace directive here: go install
// refuses a module that has one (TestInstallable checks).
module github.com/stacktrie/stacktrie/cmd/trieroot

go 1.25.0

require (
	github.com/holiman/uint256 v1.3.2
	github.com/schollz/progressbar/v3 v3.19.1
	github.com/stacktrie/stacktrie v0.0.0-00010101000000-000000000000
	github.com/stretchr/testify v1.12.1
	golang.org/x/crypto v0.48.0
	golang.org/x/term v0.44.0
)

require (
	github.com/cloudflare/circl v1.6.4 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.46.0 // indirect
)
