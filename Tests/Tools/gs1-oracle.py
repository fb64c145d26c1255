#!/usr/bin/env python3
"""The GS1 test oracle: biip (https://pypi.org/project/biip/, a well-kept GS1 parser) reads what our
parser reads, and says what it found.

Reads JSON lines from stdin, {"kind": "es" | "dl", "text": ...}: GS1 element strings (GS, 0x1D,
between them) or a GS1 Digital Link URI. Writes one JSON line per input:
{"ok": true, "elements": [[AI, value], ...]} or {"ok": false, "error": ...}.
Run with the interpreter of the venv scripts/setup makes: .build/biip/bin/python3.
"""
import json, sys

from biip import ParseError
from biip.gs1_digital_link_uris import GS1DigitalLinkURI
from biip.gs1_messages import GS1Message

for line in sys.stdin:
    request = json.loads(line)
    try:
        if request["kind"] == "dl":
            parsed = GS1DigitalLinkURI.parse(request["text"]).element_strings
        else:
            parsed = GS1Message.parse(request["text"]).element_strings
        # biip keeps a wrong GTIN, SSCC or GLN check digit beside the element; our parser refuses it.
        errors = [error for es in parsed for error in (es.gtin_error, es.sscc_error, es.gln_error) if error]
        if errors:
            print(json.dumps({"ok": False, "error": errors[0]}), flush=True)
            continue
        print(json.dumps({"ok": True, "elements": [[es.ai.ai, es.value] for es in parsed]}), flush=True)
    except (ParseError, ValueError) as error:
        print(json.dumps({"ok": False, "error": str(error)}), flush=True)
