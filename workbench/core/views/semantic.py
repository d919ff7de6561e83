"""Meaning: what a question means, beyond the words it happens to use.

A question asked weeks later says "huge" where the note says "large", "add-ons" where it says
"extensions". Full text cannot see that; static word vectors can. WordLlama's token embeddings
(MIT licence, 32,000 tokens by 256 dimensions, about 16 MB) ship inside its wheel, so nothing is
downloaded when the vault is searched: a document's vector is the mean of its tokens' vectors, and
so is a query's. Two things come of it for search:

- the documents nearest a question, by cosine, to blend with BM25 and to bring in documents that
  share no word with it;
- for each word of a question, the vault's own words nearest it ("large" for "huge"), to ask the
  full-text index for at a lower weight.

Only numpy and `tokenizers` are imported (the embedding file is read directly), and only when a
question needs them. When the `wordllama` package is not installed, `index()` returns None and
search is full text alone. Vectors are kept by each document's digest, in memory and in the derived
store (encoding 10,000 documents takes about 5 s, reading their vectors back a few hundredths), so
that only documents changed since any earlier process are encoded.
"""

from __future__ import annotations

import importlib.util
import json
import re
import struct
import threading
import weakref
from collections import Counter, OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["Model", "Index", "model", "index", "available", "document_text"]

PACKAGE = "wordllama"
WEIGHTS = ("weights", "l2_supercat_256.safetensors")
TOKENIZER = ("tokenizers", "l2_supercat_tokenizer_config.json")
TENSOR = "embedding.weight"
WORD = re.compile(r"[a-z][a-z0-9]{2,}")  # the vault's words worth offering as neighbours
MIN_DF = 2  # a word in one document only is more often a name or a typo than a synonym
NEIGHBOURS_KEPT = 4096
BATCH = 256  # texts tokenized at a time

_lock = threading.Lock()
_model: Model | None = None
_failed = False


def _package_dir() -> Path | None:
    """Where the embedding package's files are, without importing it (its import is heavy)."""
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _read_safetensors(path: Path, key: str):
    """One tensor from a .safetensors file: an 8-byte header length, a JSON header, raw data."""
    import numpy as np

    raw = path.read_bytes()
    (length,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + length])
    meta = header[key]
    start, end = meta["data_offsets"]
    dtype = {"F16": np.float16, "F32": np.float32, "BF16": None}[meta["dtype"]]
    if dtype is None:
        raise ValueError("bfloat16 embeddings are not supported")
    data = np.frombuffer(raw, dtype=dtype, count=(end - start) // np.dtype(dtype).itemsize, offset=8 + length + start)
    return data.reshape(meta["shape"]).astype(np.float32)


class Model:
    """Token embeddings and their tokenizer: text in, unit vectors out."""

    def __init__(self, embedding, tokenizer, name: str = ""):
        self.embedding = embedding
        self.tokenizer = tokenizer
        self.dim = embedding.shape[1]
        self.name = name  # what stored vectors are kept under: another model's are not reused

    @classmethod
    def load(cls, folder: Path) -> Model:
        from tokenizers import Tokenizer

        weights = folder.joinpath(*WEIGHTS)
        embedding = _read_safetensors(weights, TENSOR)
        tokenizer = Tokenizer.from_file(str(folder.joinpath(*TOKENIZER)))
        tokenizer.no_padding()
        tokenizer.no_truncation()
        return cls(embedding, tokenizer, f"{weights.name}:{weights.stat().st_size}")

    def encode(self, texts: list[str]):
        """One unit vector per text, the mean of its tokens' vectors (zero for an empty text)."""
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        last = self.embedding.shape[0] - 1
        for start in range(0, len(texts), BATCH):  # a batch at a time: encodings are large
            batch = self.tokenizer.encode_batch(texts[start : start + BATCH], add_special_tokens=False)
            for row, encoded in enumerate(batch, start):
                ids = np.asarray(encoded.ids, dtype=np.int64)
                ids = ids[(ids >= 0) & (ids <= last)]
                if len(ids):
                    vector = self.embedding[ids].mean(axis=0)
                    size = float(np.linalg.norm(vector))
                    if size > 0:
                        out[row] = vector / size
        return out


def model() -> Model | None:
    """The shared model, loaded on first use; None when its package (or numpy) is not installed."""
    global _model, _failed
    if _model is not None or _failed:
        return _model
    with _lock:
        if _model is None and not _failed:
            folder = _package_dir()
            try:
                if folder is None:
                    raise FileNotFoundError(PACKAGE)
                _model = Model.load(folder)
            except (ImportError, OSError, ValueError, KeyError):
                _failed = True
    return _model


def available() -> bool:
    return model() is not None


def document_text(fields: tuple[str, ...]) -> str:
    return " ".join(fields[:4]) + "\n" + fields[4]


class Index:
    """A vault's document vectors and vocabulary, for one generation of its records."""

    def __init__(
        self,
        model: Model,
        generation: int,
        documents: list[tuple[str, str, str, Any]],
        fields_of: Callable[[Any], tuple[str, ...]],
        previous: Index | None = None,
        stored: dict[str, object] | None = None,
    ):
        """`documents`: (path, id, digest, document) for each file; `fields_of(document)`: its
        full-text fields, asked for only when needed; `previous`: the index of an earlier
        generation, whose vectors and word counts are reused for the files that have not changed
        (a watcher batch changes a few); `stored`: vectors read back from the derived store by
        digest. What had to be encoded is left in `encoded`, to be stored in turn."""
        import numpy as np

        self.model = model
        self.generation = generation
        self.ids = [doc_id for _, doc_id, _, _ in documents]
        self.row = {doc_id: i for i, doc_id in enumerate(self.ids)}
        self.sources = {path: (digest, document) for path, _, digest, document in documents}
        kept: dict[str, Any] = dict(previous.by_digest) if previous is not None else {}
        kept.update(stored or {})
        todo = list(
            {
                digest: document_text(fields_of(document)) for _, _, digest, document in documents if digest not in kept
            }.items()
        )
        self.encoded: dict[str, Any] = dict(
            zip((digest for digest, _ in todo), model.encode([text for _, text in todo]))
        )
        vectors = dict(self.encoded)
        for _, _, digest, _ in documents:
            if digest in kept:
                vectors[digest] = kept[digest]
        self.by_digest: dict[str, Any] = vectors  # digest -> the document's vector (numpy)
        self.gone = (
            {digest for digest, _ in previous.sources.values()} - vectors.keys() if previous is not None else None
        )
        self.matrix = (
            np.stack([vectors[digest] for _, _, digest, _ in documents])
            if documents
            else np.zeros((0, model.dim), np.float32)
        )
        self.frequency = self._count_words(previous, fields_of)
        self.words = sorted(word for word, count in self.frequency.items() if count >= MIN_DF)
        self._word_vectors: dict[str, Any] = dict(previous._word_vectors) if previous is not None else {}
        self._word_matrix: Any = None
        self._neighbours: OrderedDict[str, list[tuple[str, float]]] = OrderedDict()

    def _count_words(self, previous: Index | None, fields_of) -> Counter[str]:
        """In how many files each word is: the previous generation's counts, less the files that
        changed or went, plus those that changed or came; counted afresh when most changed."""

        def words(document) -> set[str]:
            return set(WORD.findall(" ".join(fields_of(document)).lower()))

        old = previous.sources if previous is not None else {}
        gone = [entry for path, entry in old.items() if self.sources.get(path, (None,))[0] != entry[0]]
        came = [entry for path, entry in self.sources.items() if old.get(path, (None,))[0] != entry[0]]
        if previous is None or len(gone) + len(came) > len(self.sources) // 2:
            frequency: Counter[str] = Counter()
            for _, document in self.sources.values():
                frequency.update(words(document))
            return frequency
        frequency = previous.frequency.copy()
        for _, document in gone:
            frequency.subtract(words(document))
        for _, document in came:
            frequency.update(words(document))
        return +frequency  # without the words no file has any more

    def similarities(self, text: str):
        """Cosine of every document (in `ids` order) with the text."""
        return self.matrix @ self.model.encode([text])[0]

    def _words(self):
        """The vault's words' vectors (in `words` order); a word encoded for an earlier
        generation is not encoded again."""
        import numpy as np

        if self._word_matrix is None:
            new = [word for word in self.words if word not in self._word_vectors]
            self._word_vectors.update(zip(new, self.model.encode(new)))
            self._word_matrix = (
                np.stack([self._word_vectors[word] for word in self.words])
                if self.words
                else np.zeros((0, self.model.dim), np.float32)
            )
        return self._word_matrix

    def neighbours(self, word: str, count: int, threshold: float) -> list[tuple[str, float]]:
        """The vault's words nearest `word` (itself and its own forms left out), best first."""
        import numpy as np

        key = word
        if key in self._neighbours:
            self._neighbours.move_to_end(key)
            return [(w, s) for w, s in self._neighbours[key] if s >= threshold][:count]
        found: list[tuple[str, float]] = []
        if self.words:
            similarity = self._words() @ self.model.encode([word])[0]
            wanted = min(len(self.words), count + 60)  # room for the word's own forms, left out
            best = np.argpartition(-similarity, wanted - 1)[:wanted]
            for i in best[np.argsort(-similarity[best])]:
                candidate = self.words[i]
                if _same_word(candidate, word):
                    continue
                found.append((candidate, float(similarity[i])))
                if len(found) >= count + 4:
                    break
        self._neighbours[key] = found
        if len(self._neighbours) > NEIGHBOURS_KEPT:
            self._neighbours.popitem(last=False)
        return [(w, s) for w, s in found if s >= threshold][:count]


def _same_word(a: str, b: str) -> bool:
    """Forms of one word ("vault", "vaults"): no news to a stemmed full-text index."""
    stem = min(len(a), len(b), 5)
    return a[:stem] == b[:stem]


# Each open vault index's meaning index, kept here, not on the vault index: dropped with it.
KEPT: weakref.WeakKeyDictionary[Any, Index] = weakref.WeakKeyDictionary()


def index(vault, documents_of, fields_of) -> Index | None:
    """The vault's index for its current records, built on first use, kept on the vault and
    brought up to date from the last one; `documents_of(vault)` lists (path, id, digest, document),
    `fields_of(document)` gives its full-text fields. None when the model is not available.

    Encoding every document takes seconds on a large vault the first time, so only reading the
    records and the derived store happens under the vault's lock: the index is built outside it
    (searches, the watcher and the person's changes go on meanwhile), then stored and kept. An
    index built while the records changed is kept all the same: the next one starts from it."""
    found = model()
    if found is None:  # before numpy: without the extra, a question never touches it
        return None
    import numpy as np

    with vault.mutex:
        current = KEPT.get(vault)
        if current is not None and current.generation == vault.generation:
            return current
        generation, documents = vault.generation, documents_of(vault)
        stored: dict[str, object] = {}
        if vault.store is not None and found.name:
            known = current.by_digest if current is not None else {}
            missing = [digest for _, _, digest, _ in documents if digest not in known]
            for digest, blob in vault.store.vectors(found.name, missing).items():
                vector = np.frombuffer(blob, dtype=np.float32)
                if vector.shape == (found.dim,):
                    stored[digest] = vector
    built = Index(found, generation, documents, fields_of, current, stored)
    with vault.mutex:
        if vault.store is not None and found.name and built.encoded:
            real = [
                digest for digest in built.encoded if len(digest) == 64
            ]  # an unreadable file is keyed by its path: not kept
            vault.store.save_vectors(
                found.name,
                [(digest, built.encoded[digest].astype(np.float32).tobytes()) for digest in real],
                built.gone,
            )
        kept = KEPT.get(vault)
        if kept is None or kept.generation <= generation:
            KEPT[vault] = built
    return built
