// The least an MCP server can do, for the plugin benchmark (docs/benchmarks.md): one tool, `echo`,
// answering its arguments as structuredContent. NDJSON on stdin/stdout through jansson, output
// flushed whenever no more input is buffered (so pipelined requests are answered in batches).
//   cc -O2 -o echo-plugin echo.c -ljansson
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *answer(const char *method, json_t *params) {
    if (strcmp(method, "initialize") == 0)
        return json_pack("{s:s, s:{s:{}}, s:{s:s, s:s}}", "protocolVersion", "2025-06-18", "capabilities", "tools",
                         "serverInfo", "name", "echo", "version", "1.0.0");
    if (strcmp(method, "tools/list") == 0)
        return json_pack("{s:[{s:s, s:s, s:{s:s}}]}", "tools", "name", "echo", "description", "Echoes its arguments.",
                         "inputSchema", "type", "object");
    if (strcmp(method, "tools/call") == 0) {
        json_t *arguments = json_object_get(params, "arguments");
        return json_pack("{s:[], s:O}", "content", "structuredContent", arguments ? arguments : json_null());
    }
    return json_object();
}

int main(void) {
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    while ((length = getline(&line, &capacity, stdin)) > 0) {
        json_error_t error;
        json_t *message = json_loadb(line, (size_t)length, 0, &error);
        json_t *id = message ? json_object_get(message, "id") : NULL;
        const char *method = message ? json_string_value(json_object_get(message, "method")) : NULL;
        if (id != NULL && method != NULL) {
            json_t *reply = json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result",
                                      answer(method, json_object_get(message, "params")));
            char *text = json_dumps(reply, JSON_COMPACT);
            fputs(text, stdout);
            fputc('\n', stdout);
            free(text);
            json_decref(reply);
        }
        json_decref(message);
        // glibc: nothing more read ahead, so the client waits for these answers.
        if (stdin->_IO_read_ptr >= stdin->_IO_read_end) fflush(stdout);
    }
    return 0;
}
