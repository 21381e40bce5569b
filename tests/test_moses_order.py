"""Moses' stack order (core/engine/decoders/moses_order.py) against the real thing: Boost's unordered_set and hash functions.

Moses expands a stack in the iteration order of its ``boost::unordered_set<Hypothesis*>``
hashed by ``Hypothesis::hash()``. A small C++ program builds such a set with the
system's Boost (Moses is built against the same Boost 1.74 here), applies the
operations Moses applies (insert; erase one; erase all, then insert again) and
prints its iteration order and the hashes; ours must give the same.
"""

import random
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parastudio.core.engine.decoders.moses_order import MosesOrder, bitmap_hash, hypothesis_hash

BOOST = Path("/usr/include/boost/unordered_set.hpp")

PROGRAM = r"""
#include <boost/unordered_set.hpp>
#include <boost/functional/hash.hpp>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

struct Node { long id; std::size_t hash; };
struct Hash { std::size_t operator()(const Node *node) const { return node->hash; } };
struct Equal { bool operator()(const Node *a, const Node *b) const { return a->id == b->id; } };

int main() {
  boost::unordered_set<Node *, Hash, Equal> set;  // as HypothesisStack's, a set of pointers
  std::vector<Node *> nodes;
  std::string op;
  while (std::cin >> op) {
    if (op == "insert") {
      Node *node = new Node;
      std::cin >> node->id >> node->hash;
      set.insert(node);
      nodes.push_back(node);
    } else if (op == "erase") {
      long id;
      std::cin >> id;
      for (auto it = set.begin(); it != set.end(); ++it)
        if ((*it)->id == id) { set.erase(it); break; }
    } else if (op == "clear") {  // PruneToSize: every node detached in iteration order
      for (auto it = set.begin(); it != set.end();) { auto remove = it++; set.erase(remove); }
    } else if (op == "print") {
      for (const Node *node : set) std::cout << node->id << ' ';
      std::cout << '\n';
    } else if (op == "hash") {  // Hypothesis::hash() of a monotone hypothesis: bitmap, Distortion, KenLM
      long covered, length;
      std::size_t lm;
      std::cin >> covered >> length >> lm;
      std::vector<char> bitmap(length, 0);
      for (long i = 0; i < covered; ++i) bitmap[i] = 1;
      std::size_t seed = boost::hash_value(bitmap);
      boost::hash_combine(seed, static_cast<std::size_t>(covered - 1));
      boost::hash_combine(seed, lm);
      std::cout << seed << '\n';
    }
  }
}
"""


@pytest.fixture(scope="module")
def boost_set(tmp_path_factory):
    compiler = shutil.which("g++")
    if compiler is None or not BOOST.is_file():
        pytest.skip("needs g++ and Boost's headers (libboost-dev), as a Moses build does")
    folder = tmp_path_factory.mktemp("boost")
    (folder / "order.cpp").write_text(PROGRAM, encoding="utf-8")
    subprocess.run([compiler, "-O1", "-o", str(folder / "order"), str(folder / "order.cpp")], check=True)

    def run(commands: list[str]) -> list[str]:
        done = subprocess.run([str(folder / "order")], input="\n".join(commands) + "\n", capture_output=True,
                              text=True, check=True)
        return done.stdout.splitlines()

    return run


def replay(operations):
    """Our MosesOrder through the same operations; the lines the C++ program prints."""
    order, lines, members = MosesOrder(), [], []
    for operation in operations:
        if operation[0] == "insert":
            order.insert(operation[1], operation[2])
            members.append(operation[1])
        elif operation[0] == "erase":
            if operation[1] in set(order):
                order.erase(operation[1])
        elif operation[0] == "clear":
            order.clear()
        else:
            lines.append(" ".join(str(node) for node in order) + (" " if order.size else ""))
    return lines


def as_commands(operations):
    return [" ".join(str(part) for part in operation) for operation in operations]


@st.composite
def set_histories(draw):
    """What a stack goes through: insertions (hashes of any 64 bits), recombination's erase and re-insert,
    PruneToSize's erase-all then re-insert; enough insertions to rehash several times."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    operations, live, next_id = [], [], 0
    for _ in range(draw(st.integers(1, 700))):
        roll = rng.random()
        if roll < 0.75 or not live:
            operations.append(("insert", next_id, rng.getrandbits(64)))
            live.append(next_id)
            next_id += 1
        elif roll < 0.95:
            operations.append(("erase", live.pop(rng.randrange(len(live)))))
        else:
            operations.append(("clear",))
            live = []
        if rng.random() < 0.05:
            operations.append(("print",))
    operations.append(("print",))
    return operations


@settings(max_examples=25, deadline=None)
@given(operations=set_histories())
def test_the_iteration_order_is_boosts(boost_set, operations):
    assert replay(operations) == boost_set(as_commands(operations))


def test_a_pruned_stack_refilled_best_first_keeps_boosts_buckets(boost_set):
    """PruneToSize erases every node, then inserts the kept ones again: the buckets grown before stay."""
    rng = random.Random(5)
    operations = [("insert", i, rng.getrandbits(64)) for i in range(400)]
    operations += [("clear",)] + [("insert", 1000 + i, rng.getrandbits(64)) for i in range(200)] + [("print",)]
    assert replay(operations) == boost_set(as_commands(operations))


def test_hypothesis_hashes_are_moses(boost_set):
    rng = random.Random(11)
    cases = [(covered, length, rng.getrandbits(64)) for length in (1, 2, 7, 40) for covered in range(0, length + 1)]
    cases.append((3, 5, 0))  # KenLM's hash of an empty state
    expected = boost_set([f"hash {covered} {length} {lm}" for covered, length, lm in cases])
    assert [str(hypothesis_hash(bitmap_hash(c, n), c, lm)) for c, n, lm in cases] == expected
