#!/bin/sh
# The first run tells the test it has started (a line into the FIFO $SLOW_FIFO) and never answers
# initialize, so the host's start of it stays pending; later runs are the probe plugin.
if [ ! -e "$SLOW_MARK" ]; then
    : > "$SLOW_MARK"
    echo started > "$SLOW_FIFO"
    exec cat > /dev/null
fi
cd ../../plugins/probe && exec python3 probe.py
