#!/usr/bin/env python3
"""Data-parallel training of a multilayer perceptron on Fashion-MNIST with
NumPy and mpi4py: the same job as train_mlp.c, in Python.

    mpirun -np 4 python3 examples/train_mpi4py.py --epochs 1

Nothing here mentions Loom.  comm.Allreduce on a NumPy float64 array is
MPI_Allreduce with MPI_DOUBLE, so when mpirun selects Loom
(--mca coll_loom_priority 100) Loom reduces the gradients; the SUMMARY
line's loom_calls, read through MPI_T, shows it did.

Gradient filtering (mca_coll_loomfilter's top-k with error feedback) needs
nothing but the info key on the gradient communicator: --filter topk:0.01
makes it comm = MPI.COMM_WORLD.Dup(info) with info loom_filter=topk:0.01,
and changes nothing else here.

The model, the sample order and the initial weights follow train_mlp.c
step for step (the same splitmix64 stream, He-normal weights, one shuffle
per epoch, contiguous per-rank shares of each global batch), so the two
programs print the same losses up to rounding.
"""
import argparse
import ctypes
import gzip
import sys
import time

import numpy as np
from mpi4py import MPI

DEFAULT_DATA = "/usr/share/datasets/fashion-mnist"
CLASSES = 10


# ------------------------------------------------------------------ the RNG
# splitmix64, vectorized: the k-th value (from 1) of a stream only depends
# on state + k * gamma, so a whole block is one NumPy expression.
GAMMA = np.uint64(0x9E3779B97F4A7C15)


class Rng:
    def __init__(self, seed, stream):
        mult = (stream * 0xD1342543DE82EF95) & 0xFFFFFFFFFFFFFFFF
        self.state = np.uint64(seed ^ mult)

    def next(self, n):
        with np.errstate(over="ignore"):
            z = self.state + np.arange(1, n + 1, dtype=np.uint64) * GAMMA
            self.state = z[-1] if n else self.state
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))

    def unit(self, n):
        return ((self.next(n) >> np.uint64(11)) + np.uint64(1)).astype(np.float64) * 2.0**-53

    def normal(self, n):
        uv = self.unit(2 * n)
        return np.sqrt(-2.0 * np.log(uv[0::2])) * np.cos(2.0 * np.pi * uv[1::2])

    def below(self, bounds):
        """One draw per bound b, uniform in [0, b): the high word of r * b."""
        r = self.next(len(bounds))
        b = bounds.astype(np.uint64)
        lo, hi = r & np.uint64(0xFFFFFFFF), r >> np.uint64(32)
        with np.errstate(over="ignore"):
            return ((hi * b + ((lo * b) >> np.uint64(32))) >> np.uint64(32)).astype(np.int64)


# ----------------------------------------------------------------- the data
def read_idx(path, dims):
    try:
        with open(path, "rb") as raw, gzip.open(raw) as f:
            data = f.read()
    except OSError as e:
        raise ValueError(f"cannot open {path}: {e.strerror or e}; install Debian's "
                         "dataset-fashion-mnist or pass --data DIR") from e
    if data[:4] != bytes([0, 0, 8, dims]):
        raise ValueError(f"{path} is not an IDX file of unsigned bytes with {dims} dimension(s)")
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * dims).reshape(shape)


def load(comm, data_dir, prefix, limit):
    """Rank 0 reads the files and tells everyone whether it could; then
    every rank gets a copy."""
    images = labels = error = None
    if comm.rank == 0:
        try:
            images = read_idx(f"{data_dir}/{prefix}-images-idx3-ubyte.gz", 3)
            labels = read_idx(f"{data_dir}/{prefix}-labels-idx1-ubyte.gz", 1)
        except ValueError as e:
            error = str(e)
    error = comm.bcast(error, root=0)
    if error is not None:
        raise SystemExit(f"train_mpi4py: {error}" if comm.rank == 0 else 1)
    if comm.rank == 0:
        if limit:
            images, labels = images[:limit], labels[:limit]
        images = np.ascontiguousarray(images.reshape(len(images), -1))
        labels = np.ascontiguousarray(labels)
    shape = comm.bcast(None if images is None else images.shape, root=0)
    if comm.rank != 0:
        images = np.empty(shape, np.uint8)
        labels = np.empty(shape[0], np.uint8)
    comm.Bcast(images, root=0)
    comm.Bcast(labels, root=0)
    return images, labels


def share(total, rank, size):
    """This rank's contiguous part of total items: sizes differ by one at most."""
    base, extra = divmod(total, size)
    start = rank * base + min(rank, extra)
    return start, base + (1 if rank < extra else 0)


# ---------------------------------------------------------------- the model
class Mlp:
    """Weights (out x in) and biases of each layer are views into one flat
    vector, so one allreduce takes all gradients and a layer is a bucket."""

    def __init__(self, widths):
        self.shapes = list(zip(widths[:-1], widths[1:]))
        sizes = [i * o + o for i, o in self.shapes]
        self.offsets = np.concatenate(([0], np.cumsum(sizes))).astype(int)
        n = int(self.offsets[-1])
        self.params, self.grads, self.velocity = np.zeros(n), np.zeros(n), np.zeros(n)
        self.w = [self._view(self.params, l) for l in range(len(self.shapes))]
        self.gw = [self._view(self.grads, l) for l in range(len(self.shapes))]

    def _view(self, flat, l):
        i, o = self.shapes[l]
        off = self.offsets[l]
        return flat[off:off + i * o].reshape(o, i), flat[off + i * o:off + i * o + o]

    def bucket(self, l):
        return self.grads[self.offsets[l]:self.offsets[l + 1]]

    def init(self, seed):
        rng = Rng(seed, 0)
        for (i, o), (w, b) in zip(self.shapes, self.w):
            w[...] = (np.sqrt(2.0 / i) * rng.normal(i * o)).reshape(o, i)
            b[...] = 0.0

    def forward(self, x):
        self.acts = [x]
        for l, (w, b) in enumerate(self.w):
            z = self.acts[-1] @ w.T + b
            self.acts.append(np.maximum(z, 0.0) if l + 1 < len(self.w) else z)
        return self.acts[-1]

    def loss(self, labels, scale):
        """Loss sum, right answers, and the scaled gradient of the logits."""
        z = self.acts[-1]
        e = np.exp(z - z.max(axis=1, keepdims=True))
        s = e.sum(axis=1, keepdims=True)
        rows = np.arange(len(labels))
        loss = float(np.sum(np.log(s[:, 0]) - (z[rows, labels] - z.max(axis=1))))
        correct = int(np.sum(z.argmax(axis=1) == labels))
        d = e / s
        d[rows, labels] -= 1.0
        return loss, correct, d * scale

    def backward(self, delta, layer_done=None):
        for l in range(len(self.w) - 1, -1, -1):
            gw, gb = self.gw[l]
            if len(delta):
                gw += delta.T @ self.acts[l]
                gb += delta.sum(axis=0)
            if layer_done:
                layer_done(l)
            if l > 0 and len(delta):
                delta = (delta @ self.w[l][0]) * (self.acts[l] > 0.0)

    def sgd_step(self, lr, momentum):
        self.velocity *= momentum
        self.velocity += self.grads
        self.params -= lr * self.velocity
        self.grads[...] = 0.0


# ---------------------------------------------------- Loom's MPI_T counter
class LoomCounter:
    """coll_loom_allreduce_calls through MPI_T, which mpi4py 3.1 does not
    wrap: ctypes on Open MPI's libmpi, whose MPI_T handles are pointers.
    Any mismatch leaves the count unknown (n/a); it never stops training."""

    NAME = b"coll_loom_allreduce_calls"

    def __init__(self):
        self.handle = self.session = None
        self.lib = None
        try:
            self.lib = ctypes.CDLL("libmpi.so.40", mode=ctypes.RTLD_GLOBAL)
            provided = ctypes.c_int()
            if self.lib.MPI_T_init_thread(0, ctypes.byref(provided)) != 0:
                self.lib = None
                return
            self._open()
        except (OSError, AttributeError):
            self.lib = None

    def _find(self):
        num = ctypes.c_int()
        self.lib.MPI_T_pvar_get_num(ctypes.byref(num))
        ints = [ctypes.c_int() for _ in range(8)]
        dtype, enum = ctypes.c_void_p(), ctypes.c_void_p()
        name, desc = ctypes.create_string_buffer(256), ctypes.create_string_buffer(1024)
        for i in range(num.value):
            ints[0].value, ints[1].value = 256, 1024
            if self.lib.MPI_T_pvar_get_info(
                    i, name, ctypes.byref(ints[0]), ctypes.byref(ints[2]),
                    ctypes.byref(ints[3]), ctypes.byref(dtype), ctypes.byref(enum), desc,
                    ctypes.byref(ints[1]), ctypes.byref(ints[4]), ctypes.byref(ints[5]),
                    ctypes.byref(ints[6]), ctypes.byref(ints[7])) == 0 and name.value == self.NAME:
                ull = MPI._handleof(MPI.UNSIGNED_LONG_LONG)
                return i if dtype.value == ull else -1
        return -1

    def _open(self):
        index = self._find()
        if index < 0:
            return
        session, handle, count = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_int()
        if self.lib.MPI_T_pvar_session_create(ctypes.byref(session)) != 0:
            return
        self.session = session
        if self.lib.MPI_T_pvar_handle_alloc(session, index, None, ctypes.byref(handle),
                                            ctypes.byref(count)) == 0 and count.value == 1:
            self.handle = handle

    def read(self):
        value = ctypes.c_ulonglong()
        if self.handle is None or self.lib.MPI_T_pvar_read(self.session, self.handle,
                                                           ctypes.byref(value)) != 0:
            return "n/a"
        return str(value.value)

    def stop(self):
        """Before MPI_Finalize: Open MPI 4.1 crashes when MPI_T outlives MPI."""
        if self.lib is None:
            return
        if self.handle is not None:
            self.lib.MPI_T_pvar_handle_free(self.session, ctypes.byref(self.handle))
        if self.session is not None:
            self.lib.MPI_T_pvar_session_free(ctypes.byref(self.session))
        self.lib.MPI_T_finalize()
        self.lib = None


# ------------------------------------------------------------- the training
class Trainer:
    def __init__(self, args, comm, model, train, test):
        self.args, self.comm, self.model = args, comm, model
        self.train_x, self.train_y = train
        self.test_x, self.test_y = test
        hist = np.bincount(self.train_x.ravel(), minlength=256).astype(np.float64)
        mean = np.dot(hist, np.arange(256)) / hist.sum()
        std = np.sqrt(np.dot(hist, (np.arange(256) - mean) ** 2) / hist.sum())
        self.lut = (np.arange(256) - mean) / (std if std > 0 else 1.0)
        self.reqs = []
        self.steps = self.bytes_sent = self.grad_allreduces = 0

    def rows(self, x, idx):
        return self.lut[x[idx]]

    def post_bucket(self, l):
        t0 = time.perf_counter()
        bucket = self.model.bucket(l)
        self.reqs.append(self.comm.Iallreduce(MPI.IN_PLACE, bucket, op=MPI.SUM))
        self.bytes_sent += bucket.nbytes
        self.grad_allreduces += 1
        if len(self.reqs) > 1:
            MPI.Request.Testall(self.reqs[:-1])  # progress the buckets in flight
        self.comm_s += time.perf_counter() - t0

    def finish_step(self):
        t0 = time.perf_counter()
        if self.args.overlap:
            MPI.Request.Waitall(self.reqs)
            self.reqs = []
        else:
            self.comm.Allreduce(MPI.IN_PLACE, self.model.grads, op=MPI.SUM)
            self.bytes_sent += self.model.grads.nbytes
            self.grad_allreduces += 1
        self.comm_s += time.perf_counter() - t0

    def micro_step(self, order, first, total, scale, sync):
        t0, comm0 = time.perf_counter(), self.comm_s
        start, n = share(total, self.comm.rank, self.comm.size)
        idx = order[first + start:first + start + n]
        self.model.forward(self.rows(self.train_x, idx))
        loss, correct, delta = self.model.loss(self.train_y[idx], scale)
        hook = self.post_bucket if sync and self.args.overlap else None
        self.model.backward(delta, hook)
        self.loss_sum += loss
        self.correct += correct
        self.seen += n
        self.compute_s += time.perf_counter() - t0 - (self.comm_s - comm0)

    def shuffle(self, epoch):
        n = len(self.train_y)
        order = np.arange(n)
        js = Rng(self.args.seed, 1 + epoch).below(np.arange(n, 1, -1))
        for i, j in zip(range(n - 1, 0, -1), js.tolist()):
            order[i], order[j] = order[j], order[i]
        return order

    def epoch(self, e):
        a, n = self.args, len(self.train_y)
        order = self.shuffle(e)
        num_batches = -(-n // a.batch)
        b0 = 0
        while b0 < num_batches:
            kb = min(a.accum, num_batches - b0)
            end = min((b0 + kb) * a.batch, n)
            scale = 1.0 / (end - b0 * a.batch)
            for j in range(kb):
                first = (b0 + j) * a.batch
                self.micro_step(order, first, min(a.batch, n - first), scale, j == kb - 1)
            self.finish_step()
            t0 = time.perf_counter()
            self.model.sgd_step(a.lr, a.momentum)
            self.compute_s += time.perf_counter() - t0
            self.steps += 1
            b0 += kb
            if a.steps and self.steps >= a.steps:
                return True
        return False

    def evaluate(self):
        start, n = share(len(self.test_y), self.comm.rank, self.comm.size)
        correct = 0
        for i in range(start, start + n, 256):
            j = min(i + 256, start + n)
            logits = self.model.forward(self.rows(self.test_x, np.arange(i, j)))
            correct += int(np.sum(logits.argmax(axis=1) == self.test_y[i:j]))
        return correct, n

    def run(self):
        a, totals = self.args, dict(images=0.0, train_s=0.0, comm_s=0.0, compute_s=0.0)
        for e in range(a.epochs):
            self.loss_sum = self.comm_s = self.compute_s = 0.0
            self.correct = self.seen = 0
            bytes0 = self.bytes_sent
            t0 = time.perf_counter()
            stop = self.epoch(e)
            train_s = time.perf_counter() - t0
            test_correct, test_seen = self.evaluate()
            st = np.array([self.loss_sum, self.correct, self.seen, test_correct, test_seen,
                           self.compute_s, self.comm_s, train_s])
            self.comm.Allreduce(MPI.IN_PLACE, st, op=MPI.SUM)
            st[5:] /= self.comm.size
            totals.update(epochs=e + 1, loss=st[0] / st[2], train_acc=st[1] / st[2],
                          test_acc=st[3] / st[4])
            for key, v in (("images", st[2]), ("train_s", st[7]), ("comm_s", st[6]),
                           ("compute_s", st[5])):
                totals[key] += v
            if self.comm.rank == 0 and not a.quiet:
                print(f"epoch {e + 1}/{a.epochs} loss={totals['loss']:.4f} "
                      f"train_acc={totals['train_acc']:.4f} test_acc={totals['test_acc']:.4f} "
                      f"img_per_s={st[2] / st[7]:.0f} epoch_s={st[7]:.3f} comm_s={st[6]:.3f} "
                      f"compute_s={st[5]:.3f} bytes_sent={self.bytes_sent - bytes0}", flush=True)
            if stop:
                break
        return totals


# --------------------------------------------------------------- the program
def positive(kind, low=1):
    def parse(text):
        try:
            v = kind(text)
        except ValueError:
            v = None
        if v is None or v < low:
            raise argparse.ArgumentTypeError(f"'{text}' is not valid; give a number >= {low}")
        return v
    return parse


def widths(text):
    try:
        w = [int(x) for x in text.split(",")]
    except ValueError:
        w = []
    if not w or min(w) < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not valid; give widths >= 1 "
                                         "separated by commas, e.g. 512,256")
    return w


def on_off(text):
    if text not in ("on", "off"):
        raise argparse.ArgumentTypeError(f"'{text}' is not valid; give on or off")
    return text == "on"


def spec(text):
    """--filter's SPEC goes to the component unread; only what an MPI info
    value cannot hold is refused here."""
    if not text:
        raise argparse.ArgumentTypeError("the value is empty; give a spec such as topk:0.01")
    if len(text) >= MPI.MAX_INFO_VAL:
        raise argparse.ArgumentTypeError(f"the spec has {len(text)} characters; an MPI info "
                                         f"value holds at most {MPI.MAX_INFO_VAL - 1}")
    return text


def gradient_comm(world, spec):
    """The communicator the gradients are reduced on: MPI_COMM_WORLD's
    duplicate, with loom_filter=SPEC when filtering is asked for."""
    if spec is None:
        return world.Dup()
    info = MPI.Info.Create()
    info.Set("loom_filter", spec)
    comm = world.Dup(info)
    info.Free()
    return comm


class Parser(argparse.ArgumentParser):
    """Every rank parses; only rank 0 speaks."""

    def _print_message(self, message, file=None):
        if MPI.COMM_WORLD.rank == 0:
            super()._print_message(message, file)


def parse_args(argv):
    p = Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=DEFAULT_DATA, metavar="DIR",
                   help="the Fashion-MNIST IDX files (default %(default)s)")
    p.add_argument("--epochs", type=positive(int), default=3, help="passes over the training set")
    p.add_argument("--batch", type=positive(int), default=128,
                   help="global batch, split over the ranks; need not divide evenly")
    p.add_argument("--lr", type=positive(float, 1e-9), default=0.02, help="learning rate")
    p.add_argument("--momentum", type=positive(float, 0), default=0.9, help="SGD momentum")
    p.add_argument("--seed", type=positive(int, 0), default=1,
                   help="initial weights and sample order")
    p.add_argument("--hidden", type=widths, default=[512, 256], metavar="W,W,..",
                   help="hidden layer widths (default 512,256)")
    p.add_argument("--accum", type=positive(int), default=1,
                   help="gradient accumulation: allreduce and step every K batches")
    p.add_argument("--overlap", type=on_off, nargs="?", const=True, default=False,
                   metavar="on|off", help="allreduce each layer's gradient during backward")
    p.add_argument("--train-limit", type=positive(int, 0), default=0,
                   help="use the first N training images (0: all)")
    p.add_argument("--test-limit", type=positive(int, 0), default=0,
                   help="use the first N test images (0: all)")
    p.add_argument("--steps", type=positive(int, 0), default=0,
                   help="stop after N optimizer steps (0: no limit)")
    p.add_argument("--filter", type=spec, default=None, metavar="SPEC",
                   help="filter the gradient allreduce, e.g. topk:0.01: the info key "
                        "loom_filter=SPEC on the gradient communicator (default: dense)")
    p.add_argument("--quiet", action="store_true", help="print the SUMMARY line only")
    args = p.parse_args(argv)
    if args.momentum >= 1:
        p.error(f"argument --momentum: '{args.momentum}' is not valid; give 0 <= X < 1")
    if args.seed >= 2**64:
        p.error(f"argument --seed: '{args.seed}' is not valid; give 0 to {2**64 - 1}")
    return args


def main():
    args = parse_args(sys.argv[1:])
    loom = LoomCounter()  # after MPI_Init (mpi4py's import), before training
    try:
        world = MPI.COMM_WORLD
        comm = gradient_comm(world, args.filter)  # gradients get their own communicator
        train = load(world, args.data, "train", args.train_limit)
        test = load(world, args.data, "t10k", args.test_limit)
        model = Mlp([train[0].shape[1]] + args.hidden + [CLASSES])
        if world.rank == 0:
            model.init(args.seed)
        world.Bcast(model.params, root=0)
        if world.rank == 0 and not args.quiet:
            print(f"train_mpi4py: {world.size} ranks, model "
                  f"{'-'.join(str(w) for w in [train[0].shape[1]] + args.hidden + [CLASSES])} "
                  f"({model.params.size} parameters), {len(train[1])} train / "
                  f"{len(test[1])} test images, NumPy {np.__version__}", flush=True)
        trainer = Trainer(args, comm, model, train, test)
        r = trainer.run()
        if world.rank == 0:
            print(f"SUMMARY ranks={world.size} epochs={r['epochs']} steps={trainer.steps} "
                  f"loss={r['loss']:.4f} train_acc={r['train_acc']:.4f} "
                  f"test_acc={r['test_acc']:.4f} img_per_s={r['images'] / r['train_s']:.0f} "
                  f"comm_s={r['comm_s']:.3f} compute_s={r['compute_s']:.3f} "
                  f"bytes_sent={trainer.bytes_sent} loom_calls={loom.read()} "
                  f"grad_allreduces={trainer.grad_allreduces} train_s={r['train_s']:.3f} "
                  f"accum={args.accum} overlap={'on' if args.overlap else 'off'} "
                  f"batch={args.batch} hidden={','.join(map(str, args.hidden))}", flush=True)
        comm.Free()
    finally:
        loom.stop()


if __name__ == "__main__":
    main()
