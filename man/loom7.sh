#!/bin/bash
# Write loom(7), the settings of Loom's Open MPI components, from what
# ompi_info reports for them, so the page lists exactly the parameters the
# installed components register, with their defaults and help texts.
# usage: loom7.sh VERSION COMPONENT_DIR > loom.7
# COMPONENT_DIR holds mca_coll_loom.so (the build's .libs).
set -euo pipefail
if [ $# -ne 2 ] || [ ! -d "$2" ]; then
    echo "usage: loom7.sh VERSION COMPONENT_DIR (a directory holding mca_coll_loom.so)" >&2
    exit 2
fi
version=$1
export OMPI_MCA_mca_base_component_path="SYS_DEFAULT:$2"

params() {  # COMPONENT: its parameters as NAME<TAB>TYPE<TAB>DEFAULT<TAB>HELP
    local out
    out=$(ompi_info --param coll "$1" --level 9 --parsable)
    if ! grep -q "^mca:coll:$1:param:" <<<"$out"; then
        echo "loom7.sh: ompi_info lists no parameter of coll/$1 (is mca_coll_$1.so in $2?)" >&2
        exit 1
    fi
    awk -F: -v c="$1" '
        $1 == "mca" && $3 == c && $4 == "param" {
            n = $5; f = $6
            v = substr($0, length($1 $2 $3 $4 $5 $6) + 7)
            if (!(n in seen)) { seen[n] = 1; order[++k] = n }
            if (f == "value") val[n] = v
            else if (f == "type") typ[n] = v
            else if (f == "help") hlp[n] = v
        }
        # "empty" in place of an empty default: bash read merges adjacent tabs.
        END { for (i = 1; i <= k; i++) { n = order[i]; v = (val[n] == "" ? "empty" : val[n])
                                       printf "%s\t%s\t%s\t%s\n", n, typ[n], v, hlp[n] } }
    ' <<<"$out"
}

# A syntax with no space in it (topk:<density>[,warmup=N][,...]) is one
# word to groff, wider than the line: a zero-width break point (\:) between
# its optional parts lets it break there.
roff_escape() { sed -e 's/\\/\\e/g' -e 's/^\([.'"'"']\)/\\\&\1/' -e 's/\]\[/]\\:[/g'; }

section() {  # COMPONENT
    params "$1" | while IFS=$'\t' read -r name type value help; do
        printf '.TP\n.B %s\n' "$name"
        printf '%s (default: %s).\n' "$type" "$value" | roff_escape
        printf '%s\n' "$help" | roff_escape
    done
}

# Neither hyphenated nor justified: a reader copies parameter names and
# value syntaxes from the page, and a syntax is one long word that leaves
# nothing to stretch on its line.
cat <<HEAD
.TH LOOM 7 "" "loom $version" "Loom"
.nh
.ad l
.SH NAME
loom \- Loom's Open MPI collective components and their settings
.SH DESCRIPTION
Loom's Open MPI \fBcoll\fR components take over allreduce, bcast, reduce,
allgather(v) and reduce_scatter(_block), blocking and nonblocking, in every
Open MPI job that loads them, and hand everything else to the component
Open MPI would have used.  \fBmca_coll_loom\fR runs the collectives;
\fBmca_coll_loomfilter\fR filters the gradients of communicators that ask.
.PP
Installed in Open MPI's own component directory (the Debian package does
this), the components are active in every job on the node at priority 40,
which is above coll/tuned's, with no setting.  To keep Loom out of one job:
.RS
mpirun \-\-mca coll ^loom,loomfilter ...
.RE
and of every job: the line \fBcoll = ^loom,loomfilter\fR in
/etc/openmpi/openmpi\-mca\-params.conf (or \fBcoll_loom_priority = \-1\fR).
.PP
Each parameter below is set as \fB\-\-mca NAME VALUE\fR on the mpirun line,
as the environment variable \fBOMPI_MCA_\fINAME\fR, or in Open MPI's
parameter file.  This list is what \fBompi_info \-\-param coll loom
\-\-level 9\fR reports.
.SH "COMPONENT loom"
HEAD
section loom
echo '.SH "COMPONENT loomfilter"'
section loomfilter
cat <<'TAIL'
.SH "SEE ALSO"
.BR ompi_info (1),
.BR mpirun (1),
.BR loom\-bench (1),
.BR loom\-sim (1),
.BR loom\-topo (1),
.BR loom\-ckpt (1)
TAIL
