#!/usr/bin/env python3
"""The AAMVA test oracle: aamva-parser (https://pypi.org/project/aamva-parser/, 0.1.2, a port of the
npm aamva-parser) reads what our parser reads, and says what it found, in our field names.

Reads JSON lines from stdin, {"text": ...}: an AAMVA file's text. Writes one JSON line per input:
{"ok": true, "fields": {name: value, ...}} with the fields it found (strings; absent and empty ones left out),
or {"ok": false, "error": ...}. Run with the interpreter of the venv scripts/setup makes:
.build/aamva/bin/python3.
"""
import json, sys

from aamva_parser import Gender, IssuingCountry, NameSuffix, Truncation, parse

SEX = {Gender.MALE: "M", Gender.FEMALE: "F", Gender.OTHER: "X"}
COUNTRY = {IssuingCountry.UNITED_STATES: "USA", IssuingCountry.CANADA: "CAN"}
TRUNCATION = {Truncation.TRUNCATED: "true", Truncation.NONE: "false"}
# It reads the suffix into an enum; these are the spellings our generated documents use.
SUFFIX = {NameSuffix.JUNIOR: "JR", NameSuffix.SENIOR: "SR", NameSuffix.SECOND: "II", NameSuffix.THIRD: "III",
          NameSuffix.FOURTH: "IV"}

for line in sys.stdin:
    request = json.loads(line)
    try:
        lic = parse(request["text"])
        found = {
            "family_name": lic.last_name,
            "family_name_truncated": TRUNCATION.get(lic.last_name_truncation),
            "given_name": lic.first_name,
            "given_name_truncated": TRUNCATION.get(lic.first_name_truncation),
            "middle_name": lic.middle_name,
            "middle_name_truncated": TRUNCATION.get(lic.middle_name_truncation),
            "suffix": SUFFIX.get(lic.suffix),
            "birth_date": lic.date_of_birth and lic.date_of_birth.date().isoformat(),
            "issue_date": lic.issue_date and lic.issue_date.date().isoformat(),
            "expiry_date": lic.expiration_date and lic.expiration_date.date().isoformat(),
            "sex": SEX.get(lic.gender),
            "customer_id": lic.drivers_license_id,
            "street": lic.street_address,
            "street_2": lic.street_address_supplement,
            "city": lic.city,
            "jurisdiction_code": lic.state,
            "postal_code": lic.postal_code,
            "country": COUNTRY.get(lic.country),
        }
        # An empty string is no value, as in our fields.
        print(json.dumps({"ok": True, "fields": {k: v for k, v in found.items() if v}}), flush=True)
    except Exception as error:  # noqa: BLE001 - any failure is an answer the test reports
        print(json.dumps({"ok": False, "error": f"{type(error).__name__}: {error}"}), flush=True)
