#!/usr/bin/env python3
"""Writes the committed seed corpus of every fuzz target: tests/fuzz/corpus/<name>/seed-*.

Structures get a few deterministic byte strings of growing length (each decodes to some
operation sequence; the fuzzer finds the rest); parsers get valid and malformed texts. Run
from anywhere: python3 tests/fuzz/corpus/make_seeds.py. Names follow tests/fuzz/<name>_fuzz.cpp.
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
FUZZ = os.path.dirname(HERE)

WORKLOAD_SEEDS = [
    b"INSERT 1\nREAD 2\nUPDATE 3\nDELETE 4\nSCAN 5 10\n",
    b"INSERT 18446744073709551615\r\nREAD 0\r\n\r\nSCAN\t7\t4294967295\n",
    b"  READ   12  \n\nINSERT 8294857120394857\n",
    b"SCAN 1 0\n",
    b"READ 18446744073709551616\n",
    b"UPDATE\n",
    b"DELETE 5 6\n",
    b"read 5\n",
]

OPTION_SEEDS = [
    b"--size\x004MiB,1GiB\x00--keys\x001000\x00--group\x001,4,16\x00--threads\x001,2",
    b"--technique\x00naive,gp,amac,coro\x00--dist\x00zipf:0.99\x00--pages\x004k\x00--quick",
    b"--dist\x00uniform\x00--format\x00json\x00--out\x00results\x00--seed\x0042\x00--repetitions\x003",
    b"--workload\x00fill.txt\x00run.txt\x00--callgrind\x00--format\x00csv",
    b"1.5MiB\x00--size\x0064KB,dram",
    b"zipf:\x00--group\x000",
    b"--keys",
    b"--size\x001e400",
]

def structure_seeds(name):
    generator = random.Random(name)
    seeds = []
    for length in (8, 48, 200, 1000):
        seeds.append(bytes(generator.randrange(256) for _ in range(length)))
    # Mostly small keys: many collisions.
    seeds.append(bytes(generator.choice((generator.randrange(16), generator.randrange(256))) for _ in range(600)))
    return seeds

def write(name, seeds):
    directory = os.path.join(HERE, name)
    os.makedirs(directory, exist_ok=True)
    for old in os.listdir(directory):
        os.remove(os.path.join(directory, old))
    for index, seed in enumerate(seeds):
        with open(os.path.join(directory, "seed-%d" % index), "wb") as out:
            out.write(seed)

def main():
    for source in sorted(os.listdir(FUZZ)):
        if not source.endswith("_fuzz.cpp"):
            continue
        name = source[: -len("_fuzz.cpp")]
        if name == "workload_file":
            write(name, WORKLOAD_SEEDS)
        elif name == "bench_options":
            write(name, OPTION_SEEDS)
        else:
            write(name, structure_seeds(name))

if __name__ == "__main__":
    main()
