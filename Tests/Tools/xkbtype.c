// What a host with a given XKB layout types for a sequence of key strokes: the independent
// reference the keyboard-layout tests check our tables against (libxkbcommon, xkb-data).
//
//   xkbtype LAYOUT          reads lines of strokes "KEY:MODS KEY:MODS ...", prints what each line types
//   xkbtype LAYOUT --dump   prints, for each key, the characters of its shift levels
//
// LAYOUT is an xkeyboard-config layout with an optional variant: de, ch(fr), us(intl). KEY is a
// Linux evdev key code; MODS is a bit set: 1 Shift, 2 AltGr, 4 Ctrl. Keysyms go through the
// en_US.UTF-8 compose table as a Linux host's input method does, so a dead key and the key after
// it type what they compose; a sequence the table does not know prints <compose-cancelled>, one
// left open at the end of a line <dead-pending>. A stroke with Ctrl prints <ctrl-KEYSYM>.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xkbcommon/xkbcommon.h>
#include <xkbcommon/xkbcommon-compose.h>

enum { LEFTSHIFT = 42, RIGHTALT = 100, LEFTCTRL = 29 };

static void press_mods(struct xkb_state *state, int mods, enum xkb_key_direction direction) {
    if (mods & 1) xkb_state_update_key(state, LEFTSHIFT + 8, direction);
    if (mods & 2) xkb_state_update_key(state, RIGHTALT + 8, direction);
    if (mods & 4) xkb_state_update_key(state, LEFTCTRL + 8, direction);
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
    char layout[128] = "", variant[128] = "";
    if (sscanf(argv[1], "%127[^(](%127[^)])", layout, variant) < 1) return 2;
    struct xkb_rule_names names = {.rules = "evdev", .model = "pc105", .layout = layout, .variant = variant};
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
    struct xkb_compose_table *table = xkb_compose_table_new_from_locale(context, "en_US.UTF-8", XKB_COMPOSE_COMPILE_NO_FLAGS);
    if (!table) {
        fprintf(stderr, "xkbtype: no en_US.UTF-8 compose table (libx11-data)\n");
        return 1;
    }
    struct xkb_compose_state *compose = xkb_compose_state_new(table, XKB_COMPOSE_STATE_NO_FLAGS);
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        xkb_compose_state_reset(compose);
        for (char *word = strtok(line, " \n"); word; word = strtok(NULL, " \n")) {
            int key = 0, mods = 0;
            if (sscanf(word, "%d:%d", &key, &mods) < 1) continue;
            press_mods(state, mods, XKB_KEY_DOWN);
            xkb_keysym_t sym = xkb_state_key_get_one_sym(state, key + 8);
            char text[16] = "";
            if (!(mods & 4)) xkb_state_key_get_utf8(state, key + 8, text, sizeof text);
            press_mods(state, mods, XKB_KEY_UP);
            if (mods & 4) {
                char name[64];
                xkb_keysym_get_name(sym, name, sizeof name);
                printf("<ctrl-%s>", name);
                continue;
            }
            xkb_compose_state_feed(compose, sym);
            switch (xkb_compose_state_get_status(compose)) {
            case XKB_COMPOSE_NOTHING: fputs(text, stdout); break;
            case XKB_COMPOSE_COMPOSING: break;
            case XKB_COMPOSE_COMPOSED:
                xkb_compose_state_get_utf8(compose, text, sizeof text);
                fputs(text, stdout);
                xkb_compose_state_reset(compose);
                break;
            case XKB_COMPOSE_CANCELLED:
                fputs("<compose-cancelled>", stdout);
                xkb_compose_state_reset(compose);
                break;
            }
        }
        if (xkb_compose_state_get_status(compose) == XKB_COMPOSE_COMPOSING) fputs("<dead-pending>", stdout);
        putchar('\n');
        fflush(stdout);
    }
    return 0;
}
