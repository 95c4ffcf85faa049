import JSONRPC
