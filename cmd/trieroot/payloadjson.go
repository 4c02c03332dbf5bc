package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// jsonObject is a JSON object's members, without those that are null:
// go-ethereum writes the fields of later forks as null.
type jsonObject map[string]json.RawMessage

func parseObject(raw json.RawMessage) (jsonObject, error) {
	var obj jsonObject
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("want a JSON object, got %s", jsonKind(raw))
	}
	for name, v := range obj {
		if string(v) == "null" {
			delete(obj, name)
		}
	}
	return obj, nil
}

// jsonKind names the kind of a JSON value, for messages.
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// payloadSource is an execution payload found in a JSON document, with
// what the document holds beside it.
type payloadSource struct {
	payload jsonObject
	// snake says the payload uses the beacon API's names, not the engine API's.
	snake bool
	// beaconVersion is the fork name of a beacon-API response ("deneb").
	beaconVersion string
	// parentBeaconRoot is the beacon block's parent root, or
	// engine_newPayloadV3's parentBeaconBlockRoot.
	parentBeaconRoot []byte
	// requests are the execution requests, as type-prefixed lists; known
	// says the document has them, as Prague's do, even if there are none.
	requests      [][]byte
	requestsKnown bool
}

// errNoPayload says the document's shape is not one trieroot reads.
var errNoPayload = errors.New("no execution payload found: want an engine-API ExecutionPayload, " +
	"engine_newPayload params or request, an engine_getPayload response, or a beacon-API block")

// findPayload finds the execution payload in a JSON document of any of the
// shapes trieroot reads.
func findPayload(data []byte) (*payloadSource, error) {
	raw := json.RawMessage(bytes.TrimSpace(data))
	if !json.Valid(raw) {
		var v any
		err := json.Unmarshal(raw, &v)
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	src := &payloadSource{}
	return src, src.find(raw)
}

func (src *payloadSource) find(raw json.RawMessage) error {
	if jsonKind(raw) == "an array" {
		return src.newPayloadParams(raw, "")
	}
	obj, err := parseObject(raw)
	if err != nil {
		return errNoPayload
	}
	switch {
	case obj["method"] != nil:
		var method string
		if err := json.Unmarshal(obj["method"], &method); err != nil {
			return fmt.Errorf("method: want a string")
		}
		return src.newPayloadParams(obj["params"], method)
	case obj["result"] != nil: // a JSON-RPC response, such as engine_getPayload's
		return src.find(obj["result"])
	case obj["executionPayload"] != nil: // engine_getPayload's response
		if reqs := obj["executionRequests"]; reqs != nil {
			if err := src.engineRequests(reqs); err != nil {
				return err
			}
		}
		return src.enginePayload(obj["executionPayload"])
	case obj["data"] != nil: // a beacon-API response
		if v := obj["version"]; v != nil {
			if err := json.Unmarshal(v, &src.beaconVersion); err != nil {
				return fmt.Errorf("version: want a string")
			}
		}
		return src.find(obj["data"])
	case obj["message"] != nil: // a signed beacon block
		return src.find(obj["message"])
	case obj["body"] != nil: // a beacon block
		if root := obj["parent_root"]; root != nil {
			if src.parentBeaconRoot, err = fixedBytes(root, 32); err != nil {
				return fmt.Errorf("parent_root: %w", err)
			}
		}
		return src.find(obj["body"])
	case obj["execution_payload"] != nil: // a beacon block's body
		if reqs := obj["execution_requests"]; reqs != nil {
			if err := src.beaconRequests(reqs); err != nil {
				return fmt.Errorf("execution_requests: %w", err)
			}
		}
		src.snake = true
		src.payload, err = parseObject(obj["execution_payload"])
		return err
	case obj["parentHash"] != nil:
		src.payload = obj
		return nil
	case obj["parent_hash"] != nil:
		src.payload, src.snake = obj, true
		return nil
	}
	return errNoPayload
}

func (src *payloadSource) enginePayload(raw json.RawMessage) error {
	obj, err := parseObject(raw)
	if err != nil {
		return fmt.Errorf("executionPayload: %w", err)
	}
	src.payload = obj
	return nil
}

// newPayloadParams reads engine_newPayload's params: the payload, then from
// V3 the blob versioned hashes and the parent beacon block root, then from
// V4 the execution requests. method, when known, must be one of V1 to V4.
func (src *payloadSource) newPayloadParams(raw json.RawMessage, method string) error {
	if method != "" {
		version, ok := strings.CutPrefix(method, "engine_newPayloadV")
		n, err := strconv.Atoi(version)
		switch {
		case !ok || err != nil || n < 1:
			return fmt.Errorf("method %q: want engine_newPayloadV1 to V4", method)
		case n > 4:
			return fmt.Errorf("method %s is for a fork after Prague, which trieroot does not know", method)
		}
	}
	var params []json.RawMessage
	if err := json.Unmarshal(raw, &params); err != nil {
		return fmt.Errorf("params: want an array, got %s", jsonKind(raw))
	}
	switch len(params) {
	case 1, 3, 4:
	default:
		return fmt.Errorf("params: %d elements, want 1 (V1, V2), 3 (V3) or 4 (V4)", len(params))
	}
	if len(params) >= 3 {
		root, err := fixedBytes(params[2], 32)
		if err != nil {
			return fmt.Errorf("params[2], the parent beacon block root: %w", err)
		}
		src.parentBeaconRoot = root
	}
	if len(params) == 4 {
		if err := src.engineRequests(params[3]); err != nil {
			return err
		}
	}
	return src.enginePayload(params[0])
}
