// US keyboard layout for the rig's key tools: evdev key code -> name, plain and shifted character.
#include <linux/input-event-codes.h>

struct ks_key { int code; const char *name; char plain, shifted; };

static const struct ks_key ks_keys[] = {
    { KEY_ESC, "ESC", 0, 0 },
    { KEY_1, "1", '1', '!' }, { KEY_2, "2", '2', '@' }, { KEY_3, "3", '3', '#' },
    { KEY_4, "4", '4', '$' }, { KEY_5, "5", '5', '%' }, { KEY_6, "6", '6', '^' },
    { KEY_7, "7", '7', '&' }, { KEY_8, "8", '8', '*' }, { KEY_9, "9", '9', '(' },
    { KEY_0, "0", '0', ')' }, { KEY_MINUS, "MINUS", '-', '_' }, { KEY_EQUAL, "EQUAL", '=', '+' },
    { KEY_BACKSPACE, "BACKSPACE", 0, 0 }, { KEY_TAB, "TAB", '\t', '\t' },
    { KEY_Q, "Q", 'q', 'Q' }, { KEY_W, "W", 'w', 'W' }, { KEY_E, "E", 'e', 'E' },
    { KEY_R, "R", 'r', 'R' }, { KEY_T, "T", 't', 'T' }, { KEY_Y, "Y", 'y', 'Y' },
    { KEY_U, "U", 'u', 'U' }, { KEY_I, "I", 'i', 'I' }, { KEY_O, "O", 'o', 'O' },
    { KEY_P, "P", 'p', 'P' }, { KEY_LEFTBRACE, "LEFTBRACE", '[', '{' },
    { KEY_RIGHTBRACE, "RIGHTBRACE", ']', '}' }, { KEY_ENTER, "ENTER", '\n', '\n' },
    { KEY_LEFTCTRL, "LEFTCTRL", 0, 0 },
    { KEY_A, "A", 'a', 'A' }, { KEY_S, "S", 's', 'S' }, { KEY_D, "D", 'd', 'D' },
    { KEY_F, "F", 'f', 'F' }, { KEY_G, "G", 'g', 'G' }, { KEY_H, "H", 'h', 'H' },
    { KEY_J, "J", 'j', 'J' }, { KEY_K, "K", 'k', 'K' }, { KEY_L, "L", 'l', 'L' },
    { KEY_SEMICOLON, "SEMICOLON", ';', ':' }, { KEY_APOSTROPHE, "APOSTROPHE", '\'', '"' },
    { KEY_GRAVE, "GRAVE", '`', '~' }, { KEY_LEFTSHIFT, "LEFTSHIFT", 0, 0 },
    { KEY_BACKSLASH, "BACKSLASH", '\\', '|' },
    { KEY_Z, "Z", 'z', 'Z' }, { KEY_X, "X", 'x', 'X' }, { KEY_C, "C", 'c', 'C' },
    { KEY_V, "V", 'v', 'V' }, { KEY_B, "B", 'b', 'B' }, { KEY_N, "N", 'n', 'N' },
    { KEY_M, "M", 'm', 'M' }, { KEY_COMMA, "COMMA", ',', '<' }, { KEY_DOT, "DOT", '.', '>' },
    { KEY_SLASH, "SLASH", '/', '?' }, { KEY_RIGHTSHIFT, "RIGHTSHIFT", 0, 0 },
    { KEY_LEFTALT, "LEFTALT", 0, 0 }, { KEY_SPACE, "SPACE", ' ', ' ' },
};

static const struct ks_key *ks_key_by_code(int code) {
    for (unsigned i = 0; i < sizeof ks_keys / sizeof ks_keys[0]; i++)
        if (ks_keys[i].code == code) return &ks_keys[i];
    return 0;
}

