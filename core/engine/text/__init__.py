"""Text as it goes in and out: tokenization, a sentence displayed as readers expect it (detokenized,
truecased), and the words a candidate changed."""
