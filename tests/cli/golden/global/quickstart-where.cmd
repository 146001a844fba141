# issue 15 defect 7: after the quick start, the README's `tshape` was not on
# PATH and nothing said so: quickstart.sh ends by saying where it is and how
# to install it under $HOME/.local.
PATH=/usr/bin:/bin HOME=/home/user sh scripts/quickstart.sh --where | sed "s|$(pwd)|ROOT|"
