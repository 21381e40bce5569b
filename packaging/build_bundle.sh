#!/usr/bin/env bash
# A one-folder app bundle for a judge's Linux laptop (no Python needed there):
#   bash packaging/build_bundle.sh [DIST]     -> DIST/paraphrase-studio/ (default dist/; run ./paraphrase-studio)
# It holds the app, the demo data, an icon and a .desktop file; copy the folder anywhere. To add it to the
# desktop menu:  cp dist/paraphrase-studio/paraphrase-studio.desktop ~/.local/share/applications/  and put
# the folder on PATH (or edit Exec= to its full path). Needs the set-up of `packaging/setup.sh test` first.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check "pyinstaller>=6"
dist="$(realpath -m "${1:-dist}")"
python3 -m PyInstaller --noconfirm --clean --log-level ERROR --distpath "$dist" --workpath "$dist/.work" \
  packaging/paraphrase-studio.spec
rm -rf "$dist/.work"
cp packaging/paraphrase-studio.desktop desktop/icons/paraphrase-studio.png "$dist/paraphrase-studio/"
du -sh "$dist/paraphrase-studio"
echo "built $dist/paraphrase-studio/paraphrase-studio"
