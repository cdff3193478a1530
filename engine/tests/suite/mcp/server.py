#!/usr/bin/env python3
"""A minimal MCP server for protoflow's tests: over stdio (JSON-RPC, one message
per line), or with `--http PORT_FILE` over streamable HTTP on 127.0.0.1 (JSON
responses), writing the port it listens on to PORT_FILE.

Tools: echo (text), hang (starts a `sleep` child, then never answers), die (exits
mid-call), env (lists its environment's names), big (a large text), fail (an
isError result).

Environment (all optional):
  MCP_TEST_MARKER    file to which the server appends its pid when it starts
  MCP_TEST_CALLS     file to which every tools/call is appended as one JSON line
  MCP_TEST_CHILDREN  file to which `hang` appends the pid of its `sleep` child
  MCP_TEST_BACKGROUND  when set, start a background `sleep` child at start-up
                     (its pid is appended to MCP_TEST_CHILDREN too)
"""

import json
import os
import subprocess
import sys
import time


def append(var, line):
    path = os.environ.get(var)
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(line + "\n")


TOOLS = [
    {
        "name": "echo",
        "description": "Return the text.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
            "additionalProperties": False,
        },
    },
    {"name": "hang", "description": "Never answer.", "inputSchema": {"type": "object"}},
    {"name": "die", "description": "Exit mid-call.", "inputSchema": {"type": "object"}},
    {"name": "env", "description": "List environment names.", "inputSchema": {"type": "object"}},
    {
        "name": "big",
        "description": "Return a large text.",
        "inputSchema": {
            "type": "object",
            "properties": {"bytes": {"type": "integer", "minimum": 0}},
        },
    },
    {"name": "fail", "description": "Return an error result.", "inputSchema": {"type": "object"}},
]


def text(value):
    return {"content": [{"type": "text", "text": value}]}


def call(name, args):
    if name == "echo":
        result = text(args["text"])
        result["structuredContent"] = {"echo": args["text"]}
        return result
    if name == "hang":
        child = subprocess.Popen(["sleep", "300"])
        append("MCP_TEST_CHILDREN", str(child.pid))
        while True:
            time.sleep(60)
    if name == "die":
        sys.stderr.write("dying on purpose\n")
        sys.stderr.flush()
        os._exit(3)
    if name == "env":
        return text(json.dumps(sorted(os.environ.keys())))
    if name == "big":
        return text("x" * int(args.get("bytes", 200000)))
    if name == "fail":
        result = text("it failed")
        result["isError"] = True
        return result
    return None


def reply(msg_id, result=None, error=None):
    message = {"jsonrpc": "2.0", "id": msg_id}
    if error is not None:
        message["error"] = error
    else:
        message["result"] = result
    return message


def handle(message):
    """The response to one JSON-RPC message, or None for notifications."""
    if "id" not in message or "method" not in message:
        return None  # notifications and responses
    msg_id, method = message["id"], message["method"]
    params = message.get("params") or {}
    if method == "initialize":
        return reply(msg_id, {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "protoflow-test-server", "version": "1.0"},
        })
    if method == "ping":
        return reply(msg_id, {})
    if method == "tools/list":
        return reply(msg_id, {"tools": TOOLS})
    if method == "tools/call":
        name, args = params.get("name"), params.get("arguments") or {}
        append("MCP_TEST_CALLS", json.dumps({"tool": name, "args": args}))
        result = call(name, args)
        if result is None:
            return reply(msg_id, error={"code": -32602, "message": f"unknown tool {name}"})
        return reply(msg_id, result)
    return reply(msg_id, error={"code": -32601, "message": f"unknown method {method}"})


def serve_stdio():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        response = handle(json.loads(line))
        if response is not None:
            sys.stdout.write(json.dumps(response) + "\n")
            sys.stdout.flush()


def serve_http(port_file):
    """Streamable HTTP on 127.0.0.1 (JSON responses, no SSE); writes its port to port_file."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            response = handle(json.loads(body))
            if response is None:
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            data = json.dumps(response).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Mcp-Session-Id", "test-session")
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self.send_response(405)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_DELETE(self):
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(port_file + ".tmp", "w", encoding="utf-8") as out:
        out.write(str(server.server_address[1]))
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()


def main():
    append("MCP_TEST_MARKER", str(os.getpid()))
    if os.environ.get("MCP_TEST_BACKGROUND"):
        child = subprocess.Popen(["sleep", "300"])
        append("MCP_TEST_CHILDREN", str(child.pid))
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        serve_http(sys.argv[2])
    else:
        serve_stdio()


if __name__ == "__main__":
    main()
