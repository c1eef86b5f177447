# bash completion for fitcheck. Installed by `meson install` into
# share/bash-completion/completions/fitcheck.

_fitcheck_catalog() { # names from the built-in catalogs: "models" or "hw"
    fitcheck "$1" 2>/dev/null | awk 'NR > 1 && $1 != "" { print $1 }'
}

_fitcheck() {
    local cur prev verb
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    verb=${COMP_WORDS[1]}

    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "probe plan run report inspect models hw gen calibrate serve --help --version" -- "$cur"))
        return
    fi

    # Values of options that take one.
    case "$prev" in
    -o|--output)
        case "$verb" in
        report) COMPREPLY=($(compgen -f -X '!*.html' -- "$cur") $(compgen -d -- "$cur")) ;;
        probe) COMPREPLY=($(compgen -W "md csv json jsonl" -- "$cur") $(compgen -f -- "$cur")) ;;
        *) COMPREPLY=($(compgen -W "md csv json jsonl" -- "$cur")) ;;
        esac
        return ;;
    --quant) COMPREPLY=($(compgen -W "F16 BF16 Q8_0 Q6_K Q5_K_M Q5_K_S Q4_K_M Q4_K_S Q4_0 IQ4_XS IQ4_NL Q3_K_L Q3_K_M Q3_K_S Q2_K IQ2_XXS MXFP4_MOE" -- "$cur")); return ;;
    --kv) COMPREPLY=($(compgen -W "f16 q8_0 q4_0" -- "$cur")); return ;;
    --fa) COMPREPLY=($(compgen -W "on off" -- "$cur")); return ;;
    --hw) COMPREPLY=($(compgen -W "all $(_fitcheck_catalog hw)" -- "$cur") $(compgen -f -X '!*.json' -- "$cur")); return ;;
    --runs) COMPREPLY=($(compgen -f -X '!*.json*' -- "$cur") $(compgen -d -- "$cur")); return ;;
    --out) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --profile|--show) COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur")); return ;;
    --models-dir) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    --ctx|--ngl|--parallel|--ubatch|--threads|-t|--min-tps|--title|--n-cpu-moe|--tensor-split|--llama-build) return ;;
    esac

    local opts=""
    case "$verb" in
    probe) opts="--quick --output -o --show --peer --json --no-gpu --gpu-only --force --threads --models-dir --help" ;;
    plan) opts="--quant --ctx --kv --fa --ngl --parallel --ubatch --tensor-split --cpu-moe --n-cpu-moe --hw --min-tps --ctx-sweep --link --pp --tg --mmproj --no-mmproj-offload --lora --draft --ngld --bench --backend --budget --llama-build --no-mmap --no-repack --mlock --json -o --help" ;;
    run) opts="--bench -o --json --help" ;;
    report) opts="--output -o --profile --hw --runs --ctx --title --help" ;;
    inspect) opts="--tensors --json --help" ;;
    models) opts="--json --local --models-dir --help" ;;
    hw) opts="--json --help" ;;
    gen) opts="--like --output -o --quant --layers --seed --mmproj --lora-for --rank --json --help" ;;
    calibrate) opts="--hw --out --dry-run --json --help" ;;
    serve) opts="--bind --port --help" ;;
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    # Positional arguments: models for plan and report, GGUF files elsewhere.
    case "$verb" in
    plan|report) COMPREPLY=($(compgen -W "$(_fitcheck_catalog models)" -- "$cur") $(compgen -f -X '!*.@(gguf|json)' -- "$cur") $(compgen -d -- "$cur")) ;;
    calibrate) COMPREPLY=($(compgen -f -X '!*.@(json|jsonl|csv)' -- "$cur") $(compgen -d -- "$cur")) ;;
    run|inspect) COMPREPLY=($(compgen -f -X '!*.gguf' -- "$cur") $(compgen -d -- "$cur")) ;;
    esac
}
complete -o filenames -F _fitcheck fitcheck
