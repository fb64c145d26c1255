// What a host with a given XKB layout types for a sequence of key strokes: the independent
// reference the keyboard-layout tests check our tables against (libxkbcommon, xkb-data).
//
//   xkbtype LAYOUT          reads lines of strokes "KEY:MODS KEY:MODS ...", prints what each line types
//   xkbtype LAYOUT --dump   prints, for each key, the characters of its shift levels
//
// KEY is a Linux evdev key code; MODS is a bit set: 1 Shift, 2 AltGr, 4 Ctrl. A dead key followed
// by space types the dead key's own character, as the compose tables do.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xkbcommon/xkbcommon.h>

static const struct { xkb_keysym_t dead; const char *text; } dead_keys[] = {
    {XKB_KEY_dead_circumflex, "^"}, {XKB_KEY_dead_grave, "`"}, {XKB_KEY_dead_tilde, "~"},
    {XKB_KEY_dead_acute, "\xc2\xb4"}, {XKB_KEY_dead_diaeresis, "\xc2\xa8"},
};

enum { LEFTSHIFT = 42, RIGHTALT = 100, LEFTCTRL = 29 };

static void press_mods(struct xkb_state *state, int mods, enum xkb_key_direction direction) {
    if (mods & 1) xkb_state_update_key(state, LEFTSHIFT + 8, direction);
    if (mods & 2) xkb_state_update_key(state, RIGHTALT + 8, direction);
    if (mods & 4) xkb_state_update_key(state, LEFTCTRL + 8, direction);
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
    struct xkb_rule_names names = {.rules = "evdev", .model = "pc105", .layout = argv[1]};
    struct xkb_keymap *keymap = xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS);
    if (!keymap) {
        fprintf(stderr, "xkbtype: no keymap for layout %s\n", argv[1]);
        return 1;
    }
    struct xkb_state *state = xkb_state_new(keymap);
    if (argc > 2 && strcmp(argv[2], "--dump") == 0) {
        for (int key = 1; key < 128; key++) {
            printf("%d", key);
            for (int mods = 0; mods < 4; mods++) {
                press_mods(state, mods, XKB_KEY_DOWN);
                char text[16] = "";
                xkb_keysym_t sym = xkb_state_key_get_one_sym(state, key + 8);
                xkb_state_key_get_utf8(state, key + 8, text, sizeof text);
                char name[64];
                xkb_keysym_get_name(sym, name, sizeof name);
                printf(" [%s|%s]", text, name);
                press_mods(state, mods, XKB_KEY_UP);
            }
            printf("\n");
        }
        return 0;
    }
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        const char *pending_dead = NULL;
        for (char *word = strtok(line, " \n"); word; word = strtok(NULL, " \n")) {
            int key = 0, mods = 0;
            if (sscanf(word, "%d:%d", &key, &mods) < 1) continue;
            press_mods(state, mods, XKB_KEY_DOWN);
            xkb_keysym_t sym = xkb_state_key_get_one_sym(state, key + 8);
            char text[16] = "";
            if (!(mods & 4)) xkb_state_key_get_utf8(state, key + 8, text, sizeof text);
            press_mods(state, mods, XKB_KEY_UP);
            const char *dead = NULL;
            for (size_t index = 0; index < sizeof dead_keys / sizeof dead_keys[0]; index++)
                if (dead_keys[index].dead == sym) dead = dead_keys[index].text;
            if (pending_dead) {
                fputs(sym == XKB_KEY_space ? pending_dead : "<dead-not-space>", stdout);
                pending_dead = NULL;
                continue;
            }
            if (dead) {
                pending_dead = dead;
            } else if (mods & 4) {
                char name[64];
                xkb_keysym_get_name(sym, name, sizeof name);
                printf("<ctrl-%s>", name);
            } else {
                fputs(text, stdout);
            }
        }
        if (pending_dead) fputs("<dead-pending>", stdout);
        putchar('\n');
        fflush(stdout);
    }
    return 0;
}
