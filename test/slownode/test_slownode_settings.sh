#!/bin/sh
# Bad settings: each gets one message naming the variable, the value and
# what is accepted, and the program runs to the end without the library
# (no JSON record).  Then LOOM_SLOWNODE_WINDOW=5 and LOOM_SLOWNODE_WINDOWS=3
# take effect: 31 collectives make 6 windows, and the slowed rank is
# flagged at the third, collective 15.
. "$(dirname "$0")/common.sh"

bad() {
    var=$1 value=$2 accepted=$3
    run bad 2 "$lib" 4 0 -x "$var=$value"
    grep -q "^loom-slownode: $var=\"$value\" is not accepted: it must be $accepted" \
        "$dir/bad.err" || { cat "$dir/bad.err" >&2; fail "$var=$value: no clear message"; }
    [ "$(grep -c "^loom-slownode: $var" "$dir/bad.err")" -eq 1 ] ||
        fail "$var=$value: the message is not printed once"
    [ ! -e "$dir/bad.0.json" ] || fail "$var=$value: the library ran anyway"
}
bad LOOM_SLOWNODE_WINDOW 1 "an integer from 2 to 4096"
bad LOOM_SLOWNODE_WINDOW 10x "an integer from 2 to 4096"
bad LOOM_SLOWNODE_WINDOWS 0 "an integer from 1 to 100"
bad LOOM_SLOWNODE_FLOOR_MS -1 "a number from 0 to 60000"
bad LOOM_SLOWNODE_FLOOR_PCT abc "a number from 0 to 1000"
bad LOOM_SLOWNODE_ENABLE 2 "an integer from 0 to 1"
bad LOOM_SLOWNODE_INJECT 1 "RANK:FACTOR"
bad LOOM_SLOWNODE_INJECT 1:0.5 "RANK:FACTOR"
bad LOOM_SLOWNODE_INJECT 1:stall:x "RANK:FACTOR"
run bad 2 "$lib" 4 0 -x LOOM_SLOWNODE_INJECT=7:1.5
grep -q "LOOM_SLOWNODE_INJECT names rank 7, but the job has ranks 0 to 1" "$dir/bad.err" ||
    { cat "$dir/bad.err" >&2; fail "an injected rank outside the job was not refused"; }
echo "== bad settings: refused with a message, program unchanged"

judged small 8 "$lib" 30 20 "--flag $slow --within 15 --pct 30" -x LOOM_SLOWNODE_INJECT="$slow:1.3" -x LOOM_SLOWNODE_WINDOW=5 \
    -x LOOM_SLOWNODE_WINDOWS=3
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); f=[e for e in r["events"] if e["event"]=="flag"][0]
sys.exit(0 if (r["window"],r["windows"],r["exchanges"],f["collective"],f["windows"])==(5,3,6,15,3) else "window settings: %s" % r)' \
    "$dir/small.0.json" || fail "LOOM_SLOWNODE_WINDOW/WINDOWS not applied"
echo "== window of 5, 3 windows: rank $slow flagged at collective 15"
