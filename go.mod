module github.com/stacktrie/stacktrie

go 1.24.0

require (
	github.com/cloudflare/circl v1.6.4
	github.com/holiman/uint256 v1.3.2
	github.com/stretchr/testify v1.12.1
	golang.org/x/crypto v0.48.0
	golang.org/x/sys v0.41.0
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect
