#!/bin/sh
# Tells the test it has started (a line into the FIFO $SLOW_FIFO), then sleeps without reading a byte:
# the host's start of it, and every call waiting for that start, stay pending.
echo started > "$SLOW_FIFO"
exec sleep 600
