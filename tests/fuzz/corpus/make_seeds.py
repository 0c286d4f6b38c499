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

# tests/fuzz/tbl_reader_fuzz.cpp: a configuration byte (longest line, block size, file or
# memory, payload column or row number), a column byte, then the .tbl text.
TBL_SEEDS = [
    b"\xc3\x04" + b"1|36901|O|173665.47|1996-01-02|5-LOW|Clerk#000000951|0|nstructions sleep furiously|\n"
                  b"2|78002|O|46929.18|1996-12-01|1-URGENT|Clerk#000000880|0|foxes. pending accounts|\n",
    b"\x83\x01" + b"0|AFRICA|lar deposits|\r\n1|AMERICA|hs use ironic|\r\n",
    b"\x03\x00" + b"7|a\n5|b|\n18446744073709551615|c",
    b"\x43\x00" + b"1|\n\n2|\n",
    b"\x01\x00" + b"1|2|\n" + b"9" * 80 + b"|\n",
    b"\x83\x05" + b"1|18446744073709551616|\n",
    b"\x03\x00" + b"1|\n2\x00|\n",
    b"\x8f\x0e" + b"1|2|3|4|\n||||\n-1|x|\n",
]

# tests/fuzz/query_tbl_fuzz.cpp: a configuration byte (table in bits 0-2, tuples per fragment in
# bits 3-4, a column subset in bit 5, reversed in bit 6), the subset's column mask, then the text.
QUERY_TBL_SEEDS = [
    b"\x10\x00" + b"0|AFRICA|lar deposits. blithely final packages cajole.|\n1|AMERICA|hs use ironic, even requests. s|\n",
    b"\x11\x00" + b"0|ALGERIA|0| haggle. carefully final deposits detect slyly agai|\n1|ARGENTINA|1|al foxes promise slyly|\n",
    b"\x0a\x00" + b"1|Supplier#000000001| N kD4on9OM Ipw3,gf0JBoQDd7tgrzrddZ|17|27-918-335-1736|5755.94|each slyly above|\n",
    b"\x13\x00" + b"1|Customer#000000001|IVhzIApeRb ot,c,E|15|25-989-741-2988|711.56|BUILDING|to the even, regular platelets.|\n",
    b"\x14\x00" + b"1|goldenrod lavender spring chocolate lace|Manufacturer#1|Brand#13|PROMO BURNISHED COPPER|7|JUMBO PKG|901.00|ly. slyly ironi|\n",
    b"\x35\x0b" + b"1|2|3325|771.64|, even theodolites. regular, final theodolites eat after the carefully pending foxes.|\n",
    b"\x16\x00" + b"1|36901|O|173665.47|1996-01-02|5-LOW|Clerk#000000951|0|nstructions sleep furiously among |\n"
                  b"2|78002|O|46929.18|1996-12-01|1-URGENT|Clerk#000000880|0| foxes. pending accounts at the pending|\n",
    b"\x17\x00" + b"1|155190|7706|1|17|21168.23|0.04|0.02|N|O|1996-03-13|1996-02-12|1996-03-22|DELIVER IN PERSON|TRUCK|egular courts above the|\n"
                  b"1|67310|7311|2|36|45983.16|0.09|0.06|N|O|1996-04-12|1996-02-28|1996-04-20|TAKE BACK RETURN|MAIL|ly final dependencies|\n",
    b"\x77\xa5" + b"3|4297|1798|1|45|54058.05|0.06|0.00|R|F|1994-02-02|1994-01-04|1994-02-23|NONE|AIR|ongside of the furiously|\r\n",
    b"\x1e\x00" + b"1|37|O|131251.811|1996-01-02|5-LOW|Clerk#1|0|c|\n",
    b"\x1e\x00" + b"1|37|O|131251.81|1996-02-30|5-LOW|Clerk#1|0|c|\n",
    b"\x18\x00" + b"0|AFRICA|\n",
    b"\x18\x00" + b"0|AFRICA|c|d|\n",
    b"\x1e\x00" + b"-9223372036854775808|9223372036854775807|F|-92233720368547758.08|2000-02-29|x|y|-1||\n",
]

# tests/fuzz/txn_engine_fuzz.cpp: a log mode and segment size, then operations, each an
# operation byte (value % 16), a client byte and the operation's own bytes.
TXN_OPS = {"begin": 0, "get": 2, "insert": 3, "update": 4, "upsert": 5, "remove": 6, "scan": 7,
           "commit": 8, "precommit": 10, "abort": 11, "checkpoint": 12, "crash": 13}
TXN_DAMAGE = {"none": 0, "cut": 1, "flip": 2}

def txn_engine_seed(mode, segment, steps):
    out = bytearray([mode, segment])
    for step in steps:
        name, client = step[0], step[1]
        out += bytes([TXN_OPS[name], client])
        out += bytes(step[2:])
    return bytes(out)

def txn_engine_seeds():
    def writes(client, first):
        # begin, then upserts, an insert, an update and a remove over both tables
        return [("begin", client), ("upsert", client, first, 0, 20), ("upsert", client, first + 1, 1, 200),
                ("insert", client, first + 2, 0, 5), ("update", client, first, 0, 9), ("remove", client, first + 1, 1)]
    sync = writes(0, 0) + [("commit", 0)] + writes(1, 3) + [("get", 0, 3, 0, 0), ("commit", 1), ("crash", 0, TXN_DAMAGE["none"])]
    sync += [("begin", 2), ("get", 2, 0, 0, 1), ("scan", 2, 0, 1, 0, 10), ("commit", 2)]
    async_checkpoint = writes(0, 1) + [("commit", 0), ("checkpoint", 0)] + writes(1, 2) + [("commit", 1)]
    async_checkpoint += [("crash", 0, TXN_DAMAGE["cut"], 0, 90)]
    none_mode = writes(0, 0) + [("commit", 0), ("checkpoint", 1)] + writes(1, 4) + [("commit", 1), ("crash", 2, 0)]
    pipelined = writes(0, 0) + [("precommit", 0)] + writes(1, 0x84) + [("precommit", 1), ("commit", 0)]
    pipelined += writes(2, 5) + [("commit", 2), ("crash", 0, TXN_DAMAGE["flip"], 1, 17, 3)]
    conflicts = [("begin", 0), ("begin", 1), ("upsert", 0, 7, 0, 1), ("upsert", 1, 7, 0, 2), ("commit", 0),
                 ("begin", 1), ("update", 1, 7, 0, 255), ("commit", 1), ("crash", 0, TXN_DAMAGE["cut"], 1, 3)]
    return [txn_engine_seed(0, 4, sync), txn_engine_seed(1, 1, async_checkpoint), txn_engine_seed(2, 0, none_mode),
            txn_engine_seed(0, 2, pipelined), txn_engine_seed(0, 0, conflicts)] + structure_seeds("txn_engine")

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
        elif name == "tbl_reader":
            write(name, TBL_SEEDS)
        elif name == "query_tbl":
            write(name, QUERY_TBL_SEEDS)
        elif name == "txn_engine":
            write(name, txn_engine_seeds())
        else:
            write(name, structure_seeds(name))

if __name__ == "__main__":
    main()
