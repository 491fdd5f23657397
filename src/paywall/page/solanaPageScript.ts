/**
 * The paywall page's Solana transaction builder, plain JavaScript for the browser (part of the page's inline
 * script, no bundler, no library): base58, the Ed25519 curve check a program-derived address needs, the
 * associated token accounts, and the x402 `exact` transaction the official `@x402/svm` client builds, as a
 * version-0 wire transaction with empty signature slots for the wallet (the payer) and the facilitator (the
 * fee payer) to fill: set compute unit limit (20 000), set compute unit price (1 microlamport), SPL
 * `TransferChecked` of the amount from the payer's associated token account to the payee's, and a memo
 * (`extra.memo`, else 16 random bytes in hex), accounts ordered as `@solana/kit` orders them. Defines
 * `solanaExactTransaction(facts)` in the enclosing scope; needs `crypto.subtle` (a secure context:
 * https or loopback), `TextEncoder`, `Intl.Collator` and `BigInt`.
 */
export const SOLANA_PAGE_SCRIPT = String.raw`
  var BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
  var SOLANA_PROGRAMS = {
    token: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
    token2022: "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb",
    associatedToken: "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL",
    computeBudget: "ComputeBudget111111111111111111111111111111",
    memo: "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr",
  };
  function base58Decode(text) {
    var value = 0n;
    for (var i = 0; i < text.length; i++) {
      var digit = BASE58.indexOf(text[i]);
      if (digit < 0) throw new Error("not base58: " + text);
      value = value * 58n + BigInt(digit);
    }
    var bytes = [];
    while (value > 0n) {
      bytes.unshift(Number(value & 255n));
      value >>= 8n;
    }
    for (i = 0; i < text.length && text[i] === "1"; i++) bytes.unshift(0);
    return new Uint8Array(bytes);
  }
  function base58Encode(bytes) {
    var value = 0n;
    for (var i = 0; i < bytes.length; i++) value = (value << 8n) | BigInt(bytes[i]);
    var out = "";
    while (value > 0n) {
      out = BASE58[Number(value % 58n)] + out;
      value /= 58n;
    }
    for (i = 0; i < bytes.length && bytes[i] === 0; i++) out = "1" + out;
    return out;
  }
  function solanaAddress(text) {
    var bytes = typeof text === "string" && /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(text) ? base58Decode(text) : new Uint8Array(0);
    if (bytes.length !== 32) throw new Error("not a Solana address: " + text);
    return bytes;
  }
  function concatBytes(parts) {
    var size = parts.reduce(function (sum, part) { return sum + part.length; }, 0);
    var out = new Uint8Array(size);
    var at = 0;
    parts.forEach(function (part) {
      out.set(part, at);
      at += part.length;
    });
    return out;
  }
  function littleEndian(value, size) {
    var out = new Uint8Array(size);
    var rest = BigInt(value);
    for (var i = 0; i < size; i++) {
      out[i] = Number(rest & 255n);
      rest >>= 8n;
    }
    if (rest !== 0n || BigInt(value) < 0n) throw new Error("does not fit in " + size + " bytes: " + value);
    return out;
  }
  // Solana's compact-u16: 7 bits a byte, low bits first, the high bit set on every byte but the last.
  function compactU16(value) {
    if (!(value >= 0 && value <= 0xffff)) throw new Error("compact-u16 out of range: " + value);
    var out = [];
    do {
      var byte = value & 0x7f;
      value >>= 7;
      if (value) byte |= 0x80;
      out.push(byte);
    } while (value);
    return Uint8Array.from(out);
  }
  // Ed25519: whether 32 bytes decode to a point (a program-derived address must not).
  var FIELD = (1n << 255n) - 19n;
  function fieldMod(value) {
    var rest = value % FIELD;
    return rest >= 0n ? rest : rest + FIELD;
  }
  function fieldPow(base, exponent) {
    var result = 1n;
    base = fieldMod(base);
    while (exponent > 0n) {
      if (exponent & 1n) result = (result * base) % FIELD;
      base = (base * base) % FIELD;
      exponent >>= 1n;
    }
    return result;
  }
  var CURVE_D = fieldMod(-121665n * fieldPow(121666n, FIELD - 2n));
  function isOnCurve(bytes) {
    var y = 0n;
    for (var i = 31; i >= 0; i--) y = (y << 8n) | BigInt(i === 31 ? bytes[i] & 0x7f : bytes[i]);
    var y2 = fieldMod(y * y);
    var u = fieldMod(y2 - 1n);
    var v = fieldMod(CURVE_D * y2 + 1n);
    var x = fieldMod(u * fieldPow(v, 3n) * fieldPow(u * fieldPow(v, 7n), (FIELD - 5n) / 8n));
    var vx2 = fieldMod(v * x * x);
    if (vx2 !== u && vx2 !== fieldMod(-u)) return false;
    return !(x === 0n && (bytes[31] & 0x80) !== 0);
  }
  async function programDerivedAddress(seeds, program) {
    var marker = new TextEncoder().encode("ProgramDerivedAddress");
    for (var bump = 255; bump >= 0; bump--) {
      var hash = new Uint8Array(await crypto.subtle.digest("SHA-256", concatBytes(seeds.concat([Uint8Array.of(bump), program, marker]))));
      if (!isOnCurve(hash)) return hash;
    }
    throw new Error("no program-derived address");
  }
  function associatedTokenAccount(owner, mint, tokenProgram) {
    return programDerivedAddress([solanaAddress(owner), solanaAddress(tokenProgram), solanaAddress(mint)], solanaAddress(SOLANA_PROGRAMS.associatedToken));
  }
  var addressOrder = new Intl.Collator("en", { caseFirst: "lower", ignorePunctuation: false, localeMatcher: "best fit", numeric: false, sensitivity: "variant", usage: "sort" }).compare;
  // A version-0 message (no lookup tables): the fee payer first, then signers before the rest, writable before
  // read-only, each group in @solana/kit's address order.
  function compileMessage(feePayer, instructions, blockhash) {
    var roles = {};
    function note(address, signer, writable) {
      var role = roles[address] || (roles[address] = { signer: false, writable: false });
      role.signer = role.signer || signer;
      role.writable = role.writable || writable;
    }
    note(feePayer, true, true);
    instructions.forEach(function (instruction) {
      note(instruction.program, false, false);
      instruction.accounts.forEach(function (account) {
        note(account.address, account.signer, account.writable);
      });
    });
    var keys = Object.keys(roles).sort(function (left, right) {
      if (left === feePayer || right === feePayer) return left === feePayer ? -1 : 1;
      if (roles[left].signer !== roles[right].signer) return roles[left].signer ? -1 : 1;
      if (roles[left].writable !== roles[right].writable) return roles[left].writable ? -1 : 1;
      return addressOrder(left, right);
    });
    var signers = keys.filter(function (key) { return roles[key].signer; });
    var header = Uint8Array.of(
      signers.length,
      signers.filter(function (key) { return !roles[key].writable; }).length,
      keys.filter(function (key) { return !roles[key].signer && !roles[key].writable; }).length,
    );
    var parts = [Uint8Array.of(0x80), header, compactU16(keys.length)];
    keys.forEach(function (key) { parts.push(solanaAddress(key)); });
    parts.push(solanaAddress(blockhash), compactU16(instructions.length));
    instructions.forEach(function (instruction) {
      parts.push(Uint8Array.of(keys.indexOf(instruction.program)), compactU16(instruction.accounts.length));
      parts.push(Uint8Array.from(instruction.accounts.map(function (account) { return keys.indexOf(account.address); })));
      parts.push(compactU16(instruction.data.length), instruction.data);
    });
    parts.push(compactU16(0));
    return { message: concatBytes(parts), signers: signers };
  }
  /**
   * The x402 exact transaction, wire format with empty signatures. facts: payer, payTo, mint, feePayer (base58),
   * amount (string), decimals, tokenProgram, blockhash (base58), memo (string or undefined).
   */
  async function solanaExactTransaction(facts) {
    if (facts.tokenProgram !== SOLANA_PROGRAMS.token && facts.tokenProgram !== SOLANA_PROGRAMS.token2022) {
      throw new Error("the asset was not created by a known token program");
    }
    var memo;
    if (facts.memo) {
      memo = new TextEncoder().encode(facts.memo);
      if (memo.length > 256) throw new Error("extra.memo exceeds 256 bytes");
    } else {
      memo = new TextEncoder().encode(Array.from(crypto.getRandomValues(new Uint8Array(16)), function (byte) { return byte.toString(16).padStart(2, "0"); }).join(""));
    }
    var source = base58Encode(await associatedTokenAccount(facts.payer, facts.mint, facts.tokenProgram));
    var destination = base58Encode(await associatedTokenAccount(facts.payTo, facts.mint, facts.tokenProgram));
    var instructions = [
      { program: SOLANA_PROGRAMS.computeBudget, accounts: [], data: concatBytes([Uint8Array.of(2), littleEndian(20000, 4)]) },
      { program: SOLANA_PROGRAMS.computeBudget, accounts: [], data: concatBytes([Uint8Array.of(3), littleEndian(1, 8)]) },
      {
        program: facts.tokenProgram,
        accounts: [
          { address: source, signer: false, writable: true },
          { address: facts.mint, signer: false, writable: false },
          { address: destination, signer: false, writable: true },
          { address: facts.payer, signer: true, writable: false },
        ],
        data: concatBytes([Uint8Array.of(12), littleEndian(facts.amount, 8), Uint8Array.of(facts.decimals)]),
      },
      { program: SOLANA_PROGRAMS.memo, accounts: [], data: memo },
    ];
    var compiled = compileMessage(facts.feePayer, instructions, facts.blockhash);
    var transaction = concatBytes([compactU16(compiled.signers.length), new Uint8Array(64 * compiled.signers.length), compiled.message]);
    return { transaction: transaction, source: source, destination: destination };
  }
`;
